package mqbench;

import org.apache.rocketmq.broker.BrokerStartup;
import org.apache.rocketmq.namesrv.NamesrvStartup;

/**
 * RocketMQ's name server and one broker in one JVM, so that scripts/brokers/rocketmq.sh has one
 * process to start, stop (SIGTERM runs both shutdown hooks) and kill (a fault takes both away,
 * as a crashed host would), and one heap to size.
 *
 * <p>Arguments: NAMESRV_PROPERTIES BROKER_PROPERTIES. Each startup class is RocketMQ's own
 * (NamesrvStartup, BrokerStartup), given its properties file with -c exactly as the mqnamesrv
 * and mqbroker scripts do; the name server is started first, since the broker registers with
 * it at start. Both exit the JVM themselves when their configuration is bad.
 */
public final class Server {
    private Server() {}

    public static void main(String[] args) {
        if (args.length != 2) {
            System.err.println("usage: mqbench.Server NAMESRV_PROPERTIES BROKER_PROPERTIES");
            System.exit(2);
        }
        NamesrvStartup.main0(new String[] {"-c", args[0]});
        BrokerStartup.main(new String[] {"-c", args[1]});
    }
}
