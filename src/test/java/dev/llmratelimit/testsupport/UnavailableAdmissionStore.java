package dev.llmratelimit.testsupport;

import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.Settlement;
import dev.llmratelimit.engine.StoreUnavailableException;
import dev.llmratelimit.engine.Verdict;

/** A store whose server never answers: every call fails as a timed-out store would. */
public final class UnavailableAdmissionStore implements AdmissionStore {

    @Override
    public Verdict decide(Plan plan) {
        throw new StoreUnavailableException("down", null);
    }

    @Override
    public void settle(Plan plan, Settlement settlement) {
        throw new StoreUnavailableException("down", null);
    }
}
