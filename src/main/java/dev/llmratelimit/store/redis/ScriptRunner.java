package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.StoreUnavailableException;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.RedisOutOfMemoryException;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.codec.StringCodec;

import java.util.List;

/**
 * What the Redis stores share: the Redisson client (shut down on close only when the store owns it),
 * the key prefix, and the one way they run their scripts. Any Redisson failure, its own bugs
 * included, becomes a {@link StoreUnavailableException}.
 */
final class ScriptRunner implements AutoCloseable {

    private final RedissonClient client;
    private final boolean ownsClient;
    private final String keyPrefix;
    /** Scripts whose arguments are text. */
    private final RScript textScript;
    /** Scripts whose one argument is a {@link ScriptArguments} array, sent as its bytes. */
    private final RScript binaryScript;

    private ScriptRunner(RedissonClient client, boolean ownsClient, String keyPrefix) {
        if (keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
            throw new IllegalArgumentException("A key prefix with braces would break the hash tag: " + keyPrefix);
        }
        this.client = client;
        this.ownsClient = ownsClient;
        this.keyPrefix = keyPrefix;
        this.textScript = client.getScript(StringCodec.INSTANCE);
        this.binaryScript = client.getScript(ByteArrayCodec.INSTANCE);
    }

    /** On a client that the caller keeps and shuts down. */
    static ScriptRunner using(RedissonClient client, String keyPrefix) {
        return new ScriptRunner(client, false, keyPrefix);
    }

    /** With its own client, shut down by {@link #close()}. */
    static ScriptRunner create(RedisStoreSettings settings) {
        return new ScriptRunner(RedissonClientFactory.create(settings), true, settings.keyPrefix());
    }

    String keyPrefix() {
        return keyPrefix;
    }

    /** Whether the client talks to a Redis Cluster (one script call per hash slot). */
    boolean isCluster() {
        return client.getConfig().isClusterConfig();
    }

    /**
     * Runs a script on the node that owns {@code key}. Redisson's own messages can quote the
     * arguments (pool and caller names, which logs must not show), so the failure names only the
     * exception's class.
     */
    <R> R run(LuaScript lua, RScript.ReturnType type, String key, List<Object> keys, Object... args) {
        return runOn(textScript, lua, type, key, keys, args);
    }

    /** As {@link #run(LuaScript, RScript.ReturnType, String, List, Object...)}, the script's one argument an array. */
    <R> R run(LuaScript lua, RScript.ReturnType type, String key, List<Object> keys, ScriptArguments args) {
        return runOn(binaryScript, lua, type, key, keys, args.toBytes());
    }

    private <R> R runOn(RScript script, LuaScript lua, RScript.ReturnType type, String key, List<Object> keys, Object... args) {
        try {
            return lua.run(script, type, key, keys, args);
        } catch (RedisOutOfMemoryException e) {
            // Redis refuses a script at its first write when full, so nothing was written: nothing to compensate.
            throw StoreUnavailableException.notRun("Redis is out of memory and refused " + lua.name(), e);
        } catch (RedisException e) {
            throw new StoreUnavailableException("Redis did not answer " + lua.name()
                    + " (" + e.getClass().getSimpleName() + ")", e);
        } catch (RuntimeException e) {
            if (!thrownByTheClient(e)) {
                throw e;                                 // our own bug: internal errors have a setting of their own
            }
            // Redisson itself can fail this way while its connections are being set up against a
            // stalled server (a NullPointerException in its pool): the command may have gone out.
            throw new StoreUnavailableException("The Redis client failed running " + lua.name()
                    + " (" + e.getClass().getSimpleName() + ")", e);
        }
    }

    /** Whether the exception was thrown inside Redisson or its network layer, not by this library. */
    private static boolean thrownByTheClient(RuntimeException e) {
        StackTraceElement[] trace = e.getStackTrace();
        return trace.length > 0 && (trace[0].getClassName().startsWith("org.redisson.")
                || trace[0].getClassName().startsWith("io.netty."));
    }

    @Override
    public void close() {
        if (ownsClient) {
            client.shutdown();
        }
    }
}
