package dev.llmratelimit.outbound.redis;

import dev.llmratelimit.engine.StoreUnavailableException;
import org.redisson.api.RScript;
import org.redisson.client.RedisException;
import org.redisson.client.RedisNoScriptException;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * One outbound script ({@code buckets.lua} followed by the operation's own file), run asynchronously by
 * its SHA-1; on {@code NOSCRIPT} (first use, or after a restart emptied the script cache) it is loaded
 * on the key's node and run once more. Redis failures complete the future with a
 * {@link StoreUnavailableException} that names only the script and the exception's class.
 */
final class OutboundScript {

    private static final String PRELUDE = "buckets.lua";

    private final String name;
    private final String source;
    private final String sha;

    OutboundScript(String name) {
        this.name = name;
        this.source = read(PRELUDE) + "\n" + read(name);
        this.sha = sha1(source);
    }

    <R> CompletableFuture<R> run(RScript script, RScript.ReturnType type, List<Object> keys, Object... args) {
        String key = (String) keys.get(0);
        CompletableFuture<R> first = script.<R>evalShaAsync(key, RScript.Mode.READ_WRITE, sha, type, keys, args)
                .toCompletableFuture();
        return first.exceptionallyCompose(failure -> {
            if (cause(failure) instanceof RedisNoScriptException) {
                return script.scriptLoadAsync(key, source).toCompletableFuture()
                        .thenCompose(loaded -> script.<R>evalShaAsync(key, RScript.Mode.READ_WRITE, sha, type, keys, args)
                                .toCompletableFuture());
            }
            return CompletableFuture.failedFuture(failure);
        }).exceptionallyCompose(failure -> CompletableFuture.failedFuture(unavailable(cause(failure))));
    }

    private Throwable unavailable(Throwable cause) {
        if (cause instanceof RedisException || cause instanceof java.util.concurrent.CancellationException) {
            return new StoreUnavailableException("Redis did not answer " + name + " ("
                    + cause.getClass().getSimpleName() + ")", cause);
        }
        return cause;
    }

    private static Throwable cause(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    private static String read(String name) {
        try (InputStream in = OutboundScript.class.getResourceAsStream("/dev/llmratelimit/outbound/" + name)) {
            if (in == null) {
                throw new IllegalStateException("Missing script resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read script resource " + name, e);
        }
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every Java platform", e);
        }
    }
}
