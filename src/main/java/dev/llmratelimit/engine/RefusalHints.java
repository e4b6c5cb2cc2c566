package dev.llmratelimit.engine;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counter groups that recently refused on requests, so that the next request to such a group, until
 * the refusal's window ends, can be decided with a free upper bound of its prompt instead of a
 * tokenizer run ({@link PromptTokens#upperBound()}): such a request is refused again (request counts
 * fall only when their window ends, or when a compensation takes back a lost decision: then a
 * request admitted after all over-reserves until its settlement). Parallel-slot refusals are not
 * hinted: a slot frees as soon as any call ends, and an admitted request would hold the bound's
 * reservation, up to 1.5 times its body's bytes, for its whole call. A hint never refuses anything
 * itself. Bounded: beyond {@value #MAX_HINTS} hints the expired ones go, then all.
 */
final class RefusalHints {

    static final int MAX_HINTS = 4096;

    private final Map<Key, Long> until = new ConcurrentHashMap<>();

    private record Key(GroupKind kind, String id, String member) {
    }

    /** Whether any group of the plan refused on requests in a window that has not ended yet. */
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

    /** Notes the refusal of a verdict, if it was on requests. */
    void note(Refusal refusal, long now) {
        long validFor = refusal.dimension() == Dimension.REQUESTS ? refusal.resetMillis() : 0;
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
