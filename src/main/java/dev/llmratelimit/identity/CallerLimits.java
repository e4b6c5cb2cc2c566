package dev.llmratelimit.identity;

import dev.llmratelimit.engine.CallerScope;

/** The per-caller limits a caller's metadata sets, one {@link ScopeLimits} per scope. */
public record CallerLimits(ScopeLimits key, ScopeLimits user, ScopeLimits team) {

    public static final CallerLimits NONE = new CallerLimits(ScopeLimits.NONE, ScopeLimits.NONE, ScopeLimits.NONE);

    public ScopeLimits of(CallerScope scope) {
        return switch (scope) {
            case KEY -> key;
            case USER -> user;
            case TEAM -> team;
        };
    }

    /** Whether no scope has a limit. */
    public boolean isEmpty() {
        return key.isEmpty() && user.isEmpty() && team.isEmpty();
    }

    /** Each limit of each scope that this one does not set is taken from {@code fallback}. */
    public CallerLimits orElse(CallerLimits fallback) {
        if (fallback.isEmpty()) {
            return this;
        }
        if (isEmpty()) {
            return fallback;
        }
        return new CallerLimits(key.orElse(fallback.key), user.orElse(fallback.user), team.orElse(fallback.team));
    }
}
