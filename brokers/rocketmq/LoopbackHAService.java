package mqbench;

import java.io.IOException;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;

import org.apache.rocketmq.store.DefaultMessageStore;
import org.apache.rocketmq.store.ha.DefaultHAService;

/**
 * RocketMQ's own master HA service, listening on loopback instead of every interface.
 *
 * <p>RocketMQ 5.3.3's DefaultHAService always listens for slaves on haListenPort (the broker's
 * listenPort + 1) at the wildcard address, and has no bind option. The settings that drop it
 * (duplicationEnable) also stop dispatching messages to consumers, so it cannot simply be turned
 * off. DefaultMessageStore asks RocketMQ's ServiceProvider for an HAService first (resource
 * META-INF/service/org.apache.rocketmq.store.ha.HAService, which names this class) and only
 * falls back to DefaultHAService when none is found. This is that service unchanged, except
 * that before start() its accept socket's address is replaced by the host in the system
 * property mqbench.ha.host (default 127.0.0.1): the field is private and final in
 * DefaultHAService.AcceptSocketService, hence reflection (the jars are on the class path, the
 * unnamed module, so Java 17 allows it). Nothing else changes: a single master without slaves.
 */
public class LoopbackHAService extends DefaultHAService {
    @Override
    public void init(DefaultMessageStore store) throws IOException {
        super.init(store);
        String host = System.getProperty("mqbench.ha.host", "127.0.0.1");
        int port = store.getMessageStoreConfig().getHaListenPort();
        try {
            Field f = DefaultHAService.AcceptSocketService.class.getDeclaredField("socketAddressListen");
            f.setAccessible(true);
            f.set(acceptSocketService, new InetSocketAddress(host, port));
        } catch (ReflectiveOperationException e) {
            // Refuse to start rather than listen on every interface.
            throw new IOException("mqbench: cannot bind RocketMQ's HA port to " + host, e);
        }
    }
}
