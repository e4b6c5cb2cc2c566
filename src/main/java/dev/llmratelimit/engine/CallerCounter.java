package dev.llmratelimit.engine;

import dev.llmratelimit.policy.KeyHash;
import java.util.List;

/**
 * The counters of one caller scope that has at least one limit: its limits per window and its
 * parallel slots. A parallel limit of 0 is not enforced.
 *
 * @param id     the scope's identity: principal name (key), user, or team
 * @param limits what the scope may use per window, any dimension, any window length
 */
public record CallerCounter(CallerScope scope, String id, List<RateLimit> limits, long maxParallelRequests) {

    public CallerCounter {
        limits = List.copyOf(limits);
    }

    /** Requests and tokens per configured window (0: not limited) and parallel requests. */
    public CallerCounter(CallerScope scope, String id, long rpmLimit, long tpmLimit, long maxParallelRequests) {
        this(scope, id, RateLimit.perConfiguredWindow(rpmLimit, tpmLimit), maxParallelRequests);
    }

    /**
     * How messages show the identity: a key only as {@code sha256:} and the first 12 hex digits of
     * its SHA-256, as principal names may be the API key itself; user and team names as they are.
     */
    public String label() {
        return scope == CallerScope.KEY ? KeyHash.shortHash(id) : id;
    }

    /**
     * From the scope and identity alone (a string's hash is kept by the string): the engine looks
     * the caller's groups up by plan on every request, and the limits, which {@code equals} still
     * compares, would be hashed over again each time.
     */
    @Override
    public int hashCode() {
        return scope.hashCode() * 31 + id.hashCode();
    }

    /** The identity is never printed in full (it may be an API key). */
    @Override
    public String toString() {
        return "CallerCounter[" + scope.label() + " " + KeyHash.shortHash(id) + ", " + limits
                + ", parallel=" + maxParallelRequests + "]";
    }
}
