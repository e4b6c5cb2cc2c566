package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.CallerCounter;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Redis keys of per-caller counters. Every caller key carries the one hash tag {@value #TAG}, so a
 * script can check key, user and team counters together; the tag contains a dot, which base64url
 * never does, so it is never a model's tag (model keys are {@code <prefix>{<base64url(model)>}}).
 * A counter is {@code <prefix>{caller.limits}<scope letter><base64url(id)>} (a hash: window end,
 * requests, tokens) and its parallel slots the same key with {@code :s} (a sorted set).
 */
final class CallerKeys {

    static final String TAG = "{caller.limits}";

    private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

    private CallerKeys() {
    }

    static String counterKey(String prefix, CallerCounter counter) {
        return prefix + TAG + counter.scope().code() + BASE64URL.encodeToString(counter.id().getBytes(StandardCharsets.UTF_8));
    }

    static String slotsKey(String counterKey) {
        return counterKey + ":s";
    }
}
