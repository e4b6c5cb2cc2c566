package dev.llmratelimit.store.redis;

import org.redisson.api.RScript;
import org.redisson.client.RedisNoScriptException;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * One Lua script from this package's resources, run by its SHA-1 ({@code EVALSHA}). The script is
 * loaded ({@code SCRIPT LOAD}) when Redis answers {@code NOSCRIPT}: on first use, and again after
 * a restart or failover has emptied the server's script cache; the call is then retried once.
 */
final class LuaScript {

    private final String name;
    private final String source;
    private final String sha;

    private LuaScript(String name, String source) {
        this.name = name;
        this.source = source;
        this.sha = sha1Hex(source);
    }

    /** One script made of these resources, joined in this order; it is named after the last. */
    static LuaScript fromResources(String... names) {
        StringBuilder source = new StringBuilder();
        for (String name : names) {
            source.append(read(name)).append('\n');
        }
        return new LuaScript(names[names.length - 1], source.toString());
    }

    private static String read(String name) {
        try (InputStream in = LuaScript.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("Missing script resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read script resource " + name, e);
        }
    }

    String name() {
        return name;
    }

    String sha() {
        return sha;
    }

    /**
     * Runs the script on the node that owns {@code key} (the first of {@code keys}).
     *
     * @throws org.redisson.client.RedisException when Redis cannot answer
     */
    <R> R run(RScript script, RScript.ReturnType returnType, String key, List<Object> keys, Object... args) {
        try {
            return script.evalSha(key, RScript.Mode.READ_WRITE, sha, returnType, keys, args);
        } catch (RedisNoScriptException e) {
            script.scriptLoad(source);
            return script.evalSha(key, RScript.Mode.READ_WRITE, sha, returnType, keys, args);
        }
    }

    private static String sha1Hex(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every Java platform", e);
        }
    }
}
