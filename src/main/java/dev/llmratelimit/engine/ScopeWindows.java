package dev.llmratelimit.engine;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The limits of one scope sorted into its windows, each window one counter group. A limit written
 * over the configured window ({@link RateLimit#CONFIGURED_WINDOW}: {@code rpm}, {@code tpm},
 * {@code itpm}, {@code otpm} and their {@code -limit} forms) counts in the configured window, which
 * comes first and keeps the scope's plain counters whatever its length; a limit written with a
 * duration of its own counts in the window of that duration, tagged with its length, even when the
 * configured window has the same length. So a reload that changes {@code window} moves no limit to
 * other counters: {@code rpd} keeps its day's count when {@code window} becomes a day.
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
     * limit uses it); a second limit of the same dimension written over the same window keeps the
     * lower amount.
     */
    List<Window> of(List<RateLimit> limits, boolean withConfigured) {
        Map<Long, long[]> byWindow = new LinkedHashMap<>();
        if (withConfigured) {
            byWindow.put(RateLimit.CONFIGURED_WINDOW, none());
        }
        for (RateLimit limit : limits) {
            long[] amounts = byWindow.computeIfAbsent(limit.windowMillis(), written -> none());
            int d = limit.dimension().index();
            amounts[d] = amounts[d] < 0 ? limit.amount() : Math.min(amounts[d], limit.amount());
        }
        List<Window> windows = new ArrayList<>(byWindow.size());
        byWindow.computeIfPresent(RateLimit.CONFIGURED_WINDOW, (configured, amounts) -> {
            windows.add(new Window(GroupWindow.rolling(configuredMillis, sliding), amounts));
            return amounts;
        });
        byWindow.forEach((length, amounts) -> {
            if (length != RateLimit.CONFIGURED_WINDOW) {
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
