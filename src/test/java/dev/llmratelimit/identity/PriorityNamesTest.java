package dev.llmratelimit.identity;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PriorityNamesTest {

    @Test
    void genericNamesAreLoggedAsTheyAre() {
        assertThat(PriorityNames.forLog("low")).isEqualTo("low");
        assertThat(PriorityNames.forLog("medium")).isEqualTo("medium");
        assertThat(PriorityNames.forLog("high")).isEqualTo("high");
        assertThat(PriorityNames.forLog("default")).isEqualTo("default");
    }

    @Test
    void anyOtherNameIsRedacted() {
        assertThat(PriorityNames.forLog("prod")).isEqualTo("REDACTED");
        assertThat(PriorityNames.forLog("acme-corp-gold")).isEqualTo("REDACTED");
        assertThat(PriorityNames.forLog("HIGH")).isEqualTo("REDACTED");
        assertThat(PriorityNames.forLog(" low")).isEqualTo("REDACTED");
        assertThat(PriorityNames.forLog("")).isEqualTo("REDACTED");
    }

    @Test
    void noPriorityIsNone() {
        assertThat(PriorityNames.forLog(null)).isEqualTo("none");
    }

    @Test
    void callerToStringShowsNoNamesAndOnlyGenericPriorities() {
        Caller caller = new Caller("sk-live-alice", "acme", "gold", "high");

        assertThat(caller.toString())
                .isEqualTo("Caller[authenticated, team=REDACTED, teamPriority=REDACTED, ownPriority=high]");
        assertThat(Caller.ANONYMOUS.toString())
                .isEqualTo("Caller[anonymous, team=none, teamPriority=none, ownPriority=none]");
    }
}
