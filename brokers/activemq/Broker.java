// ActiveMQ Classic 6.1.7 embedded for scripts/brokers/activemq.sh (the project has no
// apache-activemq distribution, see pom.xml): one persistent broker, KahaDB in the data dir
// given, OpenWire and AMQP 1.0 on the host given (127.0.0.1) only, login required.
//
// Usage: java -cp 'classes:lib/*' Broker DATA_DIR HOST OPENWIRE_PORT AMQP_PORT
// with ACTIVEMQ_USER and ACTIVEMQ_PASSWORD in the environment (kept off the command line).
//
// Nothing else listens: no JMX (so no RMI connector), no advisory topics, no network
// connectors or multicast discovery, no web console (not in the classpath); the statistics
// plugin answers on the AMQP connector (ActiveMQ.Statistics.Destination.<name>).
import java.io.File;
import java.io.FileInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;
import org.apache.activemq.broker.SslContext;
import org.apache.activemq.broker.BrokerPlugin;
import org.apache.activemq.broker.BrokerService;
import org.apache.activemq.broker.region.policy.PolicyEntry;
import org.apache.activemq.broker.region.policy.PolicyMap;
import org.apache.activemq.plugin.StatisticsBrokerPlugin;
import org.apache.activemq.security.AuthenticationUser;
import org.apache.activemq.security.SimpleAuthenticationPlugin;
import org.apache.activemq.store.kahadb.KahaDBPersistenceAdapter;

public final class Broker {
    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: Broker DATA_DIR HOST OPENWIRE_PORT AMQP_PORT");
            System.exit(2);
        }
        String dir = args[0], host = args[1];
        String user = System.getenv("ACTIVEMQ_USER"), pass = System.getenv("ACTIVEMQ_PASSWORD");
        if (user == null || user.isEmpty() || pass == null || pass.isEmpty()) {
            System.err.println("Broker: ACTIVEMQ_USER and ACTIVEMQ_PASSWORD must be set");
            System.exit(2);
        }

        BrokerService b = new BrokerService();
        b.setBrokerName("mqbench");
        b.setDataDirectoryFile(new File(dir));
        b.setPersistent(true);
        KahaDBPersistenceAdapter kaha = new KahaDBPersistenceAdapter();
        kaha.setDirectory(new File(dir, "kahadb"));
        b.setPersistenceAdapter(kaha);
        b.setUseJmx(false);
        b.setAdvisorySupport(false);
        // The default memory limit (1 GB) exceeds the heap the script gives (-Xmx512m): cap
        // the broker's message memory to a share of the heap instead.
        b.getSystemUsage().getMemoryUsage().setPercentOfJvmHeap(70);
        // Destinations that are empty and have had no consumer or producer for 30 s are
        // removed (checked every 10 s), so test and benchmark runs, whose driver (amqp10,
        // address plain) cannot delete a queue, leave nothing behind; as Artemis's
        // auto-delete-queues in scripts/brokers/artemis.sh.
        PolicyEntry gc = new PolicyEntry();
        gc.setGcInactiveDestinations(true);
        gc.setInactiveTimeoutBeforeGC(30_000);
        PolicyMap policies = new PolicyMap();
        policies.setDefaultEntry(gc);
        b.setDestinationPolicy(policies);
        b.setSchedulePeriodForDestinationPurge(10_000);
        // Our own hook (below) stops the broker and waits for it, so SIGTERM is a clean stop.
        b.setUseShutdownHook(false);

        // TEST CREDENTIALS ONLY (scripts/brokers/activemq.sh): one user, anonymous refused.
        SimpleAuthenticationPlugin auth = new SimpleAuthenticationPlugin(
                List.of(new AuthenticationUser(user, pass, "users")));
        auth.setAnonymousAccessAllowed(false);
        // The statistics plugin answers a message sent to ActiveMQ.Statistics.Destination.<name>
        // with the destination's figures (size: messages not yet acknowledged, those
        // dispatched to a consumer included) at its reply-to address: the exact backlog the
        // amqp10 driver reads at the end of a cell's drain, over its own AMQP connection and
        // login, with no JMX, web console or further listener.
        b.setPlugins(new BrokerPlugin[] {auth, new StatisticsBrokerPlugin()});

        // OpenWire first, AMQP last: connectors start in this order after everything else, so
        // an AMQP connection that gets answered means the whole broker is up. The AMQP
        // transformer is jms by default in 6.1 (AmqpWireFormat), so the url needs no option.
        b.addConnector("tcp://" + host + ":" + Integer.parseInt(args[2]));
        // AMQP over TLS requiring a client certificate, for the TLS test (ACTIVEMQ_TLS_PORT
        // with ACTIVEMQ_TLS_CERT, ACTIVEMQ_TLS_KEY and ACTIVEMQ_TLS_CA, PEM files; unset:
        // no such listener). Logins stay user and password: the AMQP transport of 6.1 has
        // SASL PLAIN and ANONYMOUS only, no EXTERNAL.
        String tlsPort = System.getenv("ACTIVEMQ_TLS_PORT");
        if (tlsPort != null && !tlsPort.isEmpty()) {
            b.setSslContext(sslContext(System.getenv("ACTIVEMQ_TLS_CERT"), System.getenv("ACTIVEMQ_TLS_KEY"),
                    System.getenv("ACTIVEMQ_TLS_CA")));
            b.addConnector("amqp+ssl://" + host + ":" + Integer.parseInt(tlsPort) + "?transport.needClientAuth=true");
        }
        b.addConnector("amqp://" + host + ":" + Integer.parseInt(args[3]));

        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                b.stop();
                b.waitUntilStopped();
            } catch (Exception e) {
                e.printStackTrace();
            }
        }, "mqbench-broker-stop"));
        b.start();
        b.waitUntilStarted();
        System.out.println("mqbench: ActiveMQ Classic started");
        b.waitUntilStopped();
    }

    // The broker's key and certificate and the CA that signs clients, from PEM files (the key
    // in PKCS#8, EC or RSA), as the JDK's key and trust managers: no keystore file needed.
    static SslContext sslContext(String certFile, String keyFile, String caFile) throws Exception {
        CertificateFactory cf = CertificateFactory.getInstance("X.509");
        Certificate[] chain;
        Certificate ca;
        try (FileInputStream in = new FileInputStream(certFile)) {
            chain = cf.generateCertificates(in).toArray(new Certificate[0]);
        }
        try (FileInputStream in = new FileInputStream(caFile)) {
            ca = cf.generateCertificate(in);
        }
        String pem = Files.readString(Path.of(keyFile)).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(Base64.getDecoder().decode(pem));
        PrivateKey key;
        try {
            key = KeyFactory.getInstance("EC").generatePrivate(spec);
        } catch (InvalidKeySpecException e) {
            key = KeyFactory.getInstance("RSA").generatePrivate(spec);
        }
        char[] pw = "unused".toCharArray();
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setKeyEntry("broker", key, pw, chain);
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, pw);
        KeyStore ts = KeyStore.getInstance("PKCS12");
        ts.load(null, null);
        ts.setCertificateEntry("ca", ca);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ts);
        return new SslContext(kmf.getKeyManagers(), tmf.getTrustManagers(), new SecureRandom());
    }
}
