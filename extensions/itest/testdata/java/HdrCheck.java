// Reads mqbench's exact distributions with HdrHistogram's Java reference implementation:
// a .hdr file (V2 compressed, base64) and the merged intervals of a .hlog interval log.
// Prints, for each, a line "<what> count=N" and then one line "<value> <count>" per recorded
// bucket (its highest equivalent value, ns), so the Go side can compare bucket for bucket.
// Run by extensions/itest/hdr_java_test.go as: java -cp HdrHistogram.jar HdrCheck.java FILE.hdr FILE.hlog
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Base64;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.HdrHistogram.HistogramLogReader;

public class HdrCheck {
    public static void main(String[] args) throws Exception {
        String b64 = new String(Files.readAllBytes(Paths.get(args[0]))).trim();
        Histogram h = Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(b64)), 0);
        print("hdr", h);
        HistogramLogReader reader = new HistogramLogReader(args[1]);
        Histogram sum = null;
        int intervals = 0;
        EncodableHistogram e;
        while ((e = reader.nextIntervalHistogram()) != null) {
            Histogram ih = (Histogram) e;
            if (sum == null) {
                sum = new Histogram(ih.getLowestDiscernibleValue(), ih.getHighestTrackableValue(), ih.getNumberOfSignificantValueDigits());
            }
            sum.add(ih);
            intervals++;
        }
        if (sum == null) {
            throw new IllegalStateException("no interval in " + args[1]);
        }
        print("hlog(" + intervals + ")", sum);
    }

    static void print(String what, Histogram h) {
        System.out.printf("%s count=%d%n", what, h.getTotalCount());
        for (HistogramIterationValue v : h.recordedValues()) {
            System.out.printf("%d %d%n", v.getValueIteratedTo(), v.getCountAtValueIteratedTo());
        }
    }
}
