package dev.llmratelimit.wait;

import dev.llmratelimit.engine.Admission;

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
        decision.abort();
    }

    /** What refused a request: a caller counter, or the model's or pool's limit. */
    public static Object groupOf(Admission refused) {
        if (refused.callerRefusal() != null) {
            return refused.callerRefusal().counter();
        }
        return refused.plan().model() + '\u0000' + refused.plan().pool()
                + '\u0000' + (refused.verdict() != null ? refused.verdict().refusedBy() : "store");
    }

    /** Milliseconds until a refusal would clear if nothing else happened. */
    public static long clearsIn(Admission refused) {
        if (refused.callerRefusal() != null) {
            return refused.callerRefusal().retryAfterSeconds() * 1000;
        }
        return refused.verdict() != null ? refused.verdict().resetMillis() : 1000;
    }
}
