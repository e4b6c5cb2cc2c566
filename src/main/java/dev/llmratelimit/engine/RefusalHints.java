package dev.llmratelimit.engine;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counter groups that recently refused on requests or parallel slots, so that the next request to
 * such a group can be decided with a free upper bound of its prompt instead of a tokenizer run
 * ({@link PromptTokens#upperBound()}): such a request is almost always refused again, and a
 * request that is admitted after all only over-reserves until settlement corrects it. A hint never
 * refuses anything itself. Bounded: beyond {@value #MAX_HINTS} hints the expired ones go, then all.
 */
final class RefusalHints {

    static final int MAX_HINTS = 4096;
    /** A slot refusal clears as soon as any request finishes: hinted only briefly. */
    static final long SLOT_HINT_MILLIS = 1000;

    private final Map<Key, Long> until = new ConcurrentHashMap<>();

    private record Key(GroupKind kind, String id, String member) {
    }

    /** Whether any group of the plan refused on requests or slots in a window that has not ended yet. */
    boolean anyHinted(Iterable<CounterGroup> groups, long now) {
        if (until.isEmpty()) {
            return false;
        }
        for (CounterGroup group : groups) {
            Long end = until.get(new Key(group.kind(), group.id(), group.member()));
            if (end != null && now < end) {
                return true;
            }
        }
        return false;
    }

    /** Notes the refusal of a verdict, if it was on requests or slots. */
    void note(Refusal refusal, long now) {
        long validFor = switch (refusal.dimension()) {
            case REQUESTS -> refusal.resetMillis();
            case PARALLEL_REQUESTS -> SLOT_HINT_MILLIS;
            case TOKENS, MONEY -> 0;
        };
        if (validFor <= 0) {
            return;
        }
        if (until.size() >= MAX_HINTS) {
            until.values().removeIf(end -> end <= now);
            if (until.size() >= MAX_HINTS) {
                until.clear();
            }
        }
        CounterGroup group = refusal.group();
        until.put(new Key(group.kind(), group.id(), group.member()), now + validFor);
    }

    int size() {
        return until.size();
    }
}
