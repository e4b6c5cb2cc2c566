package dev.llmratelimit.engine;

import dev.llmratelimit.policy.KeyHash;

/**
 * The counters of one caller scope that has at least one limit: requests and tokens of its window
 * and its parallel slots. A limit of 0 is not enforced.
 *
 * @param id the scope's identity: principal name (key), user, or team
 */
public record CallerCounter(CallerScope scope, String id, long rpmLimit, long tpmLimit, long maxParallelRequests) {

    /** Whether the scope needs a window (it limits requests or tokens per window). */
    public boolean countsWindow() {
        return rpmLimit > 0 || tpmLimit > 0;
    }

    /**
     * How messages show the identity: a key only as {@code sha256:} and the first 12 hex digits of
     * its SHA-256, as principal names may be the API key itself; user and team names as they are.
     */
    public String label() {
        return scope == CallerScope.KEY ? KeyHash.shortHash(id) : id;
    }

    /** The identity is never printed in full (it may be an API key). */
    @Override
    public String toString() {
        return "CallerCounter[" + scope.label() + " " + KeyHash.shortHash(id) + ", rpm=" + rpmLimit + ", tpm=" + tpmLimit
                + ", parallel=" + maxParallelRequests + "]";
    }
}
