package dev.llmratelimit.engine;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The limits of one scope sorted into its windows: limits of the same length share a window, and
 * each window is one counter group. The configured window comes first and keeps the scope's plain
 * counters; a further window is tagged with its length, so its counters live apart.
 */
final class ScopeWindows {

    private final long configuredMillis;
    private final boolean sliding;

    ScopeWindows(long configuredMillis, boolean sliding) {
        this.configuredMillis = configuredMillis;
        this.sliding = sliding;
    }

    /** One window of a scope and its limit per windowed dimension ({@link Limits#NONE} where none). */
    record Window(GroupWindow window, long[] limits) {
    }

    /**
     * The windows of these limits, the configured one first ({@code withConfigured}: even when no
     * limit uses it); a second limit of the same dimension and length keeps the lower amount.
     */
    List<Window> of(List<RateLimit> limits, boolean withConfigured) {
        Map<Long, long[]> byLength = new LinkedHashMap<>();
        if (withConfigured) {
            byLength.put(configuredMillis, none());
        }
        for (RateLimit limit : limits) {
            long[] amounts = byLength.computeIfAbsent(limit.windowMillis(configuredMillis), length -> none());
            int d = limit.dimension().index();
            amounts[d] = amounts[d] < 0 ? limit.amount() : Math.min(amounts[d], limit.amount());
        }
        List<Window> windows = new ArrayList<>(byLength.size());
        byLength.computeIfPresent(configuredMillis, (length, amounts) -> {
            windows.add(new Window(GroupWindow.rolling(length, sliding), amounts));
            return amounts;
        });
        byLength.forEach((length, amounts) -> {
            if (length != configuredMillis) {
                windows.add(new Window(GroupWindow.rolling(length, sliding, Long.toString(length)), amounts));
            }
        });
        return windows;
    }

    private static long[] none() {
        long[] none = new long[Dimension.WINDOWED.size()];
        java.util.Arrays.fill(none, Limits.NONE);
        return none;
    }
}
