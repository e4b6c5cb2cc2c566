package dev.llmratelimit.wait;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.CallEnding;
import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.Refusal;

import java.util.function.Supplier;

/** Decides a waiting request again through the engine; what a refusal says comes from its admission. */
public record AdmissionDecider(Supplier<Admission> decideAgain) implements WaitingDecision.Decider<Admission> {

    @Override
    public Admission decide() {
        return decideAgain.get();
    }

    @Override
    public boolean admits(Admission decision) {
        return decision.permitsCall();
    }

    @Override
    public Object refusingGroup(Admission decision) {
        return groupOf(decision);
    }

    @Override
    public long clearsInMillis(Admission decision) {
        return clearsIn(decision);
    }

    @Override
    public void giveBack(Admission decision) {
        CallEnding.NOT_SERVED.settle(decision);
    }

    /**
     * What refused a request: the group (kind, name, member), the limit and the pool the request
     * counted in. Requests and slots refuse every request alike, so the increments are left out; on
     * tokens and money a smaller request may fit where a larger one did not, so the size is part of it.
     */
    public static Object groupOf(Admission refused) {
        Plan plan = refused.plan();
        if (plan == null) {
            // Refused before any counter was asked (a model without a price where a budget applies, an unknown model).
            return refused.model() + '\u0000' + refused.outcome();
        }
        Refusal refusal = refused.refusal();
        String where = plan.model() + '\u0000' + plan.pool();
        if (refusal == null) {
            return where + "\u0000store";
        }
        CounterGroup group = refusal.group();
        Dimension dimension = refusal.dimension();
        String size = dimension.isTokens() || dimension == Dimension.MONEY ? "\u0000" + group.increments().of(dimension) : "";
        return where + '\u0000' + group.kind() + '\u0000' + group.id() + '\u0000' + group.member()
                + '\u0000' + refusal.dimension() + size;
    }

    /** Milliseconds until a refusal would clear if nothing else happened; a slot is tried again after 1 s. */
    public static long clearsIn(Admission refused) {
        Refusal refusal = refused.refusal();
        return refusal == null || refusal.dimension() == Dimension.PARALLEL_REQUESTS ? 1000 : refusal.resetMillis();
    }
}
