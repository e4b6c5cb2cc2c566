package dev.llmratelimit.budget;

import dev.llmratelimit.policy.PolicyException;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BudgetPolicyTest {

    private static final String R = "llm.ratelimit.";

    private static BudgetPolicy policy(String... lines) {
        Map<String, String> properties = new HashMap<>();
        for (String line : lines) {
            int eq = line.indexOf('=');
            properties.put(R + line.substring(0, eq), line.substring(eq + 1));
        }
        return BudgetPolicy.parse(properties);
    }

    private static long at(String instant) {
        return Instant.parse(instant).toEpochMilli();
    }

    @Test
    void linesComeFromOwnBudgetsThenDefaultsPerScopeKindWithPerModelBudgets() {
        BudgetPolicy policy = policy("principals.k1.budget=25", "teams.team-a.budget=1000", "teams.team-a.budgets.gpt-4o=200",
                "teams.team-a.soft-budget=800", "defaults.user.budget=10", "defaults.key.budget=5");
        List<BudgetLine> lines = policy.linesFor(new BudgetIdentity("k1", "bob", "team-a"), "gpt-4o", at("2026-12-15T10:00:00Z"));
        long start = at("2026-12-01T00:00:00Z");
        long end = at("2027-01-01T00:00:00Z");
        assertThat(lines).containsExactly(
                new BudgetLine(BudgetScope.KEY, "k1", "", start, end, 25_000_000, -1),
                new BudgetLine(BudgetScope.USER, "bob", "", start, end, 10_000_000, -1),
                new BudgetLine(BudgetScope.TEAM, "team-a", "", start, end, 1_000_000_000, 800_000_000),
                new BudgetLine(BudgetScope.TEAM, "team-a", "gpt-4o", start, end, 200_000_000, -1));
        assertThat(policy.linesFor(new BudgetIdentity("k2", null, null), "m", start))
                .containsExactly(new BudgetLine(BudgetScope.KEY, "k2", "", start, end, 5_000_000, -1));
        assertThat(policy.linesFor(BudgetIdentity.NONE, "m", start)).isEmpty();
        assertThat(policy("prices.m.input=1", "prices.m.output=1").isEmpty()).isTrue();
    }

    @Test
    void calendarPeriodsInAZoneAndDurationsFromAnAnchor() {
        BudgetPeriod month = BudgetPeriod.parse("month", "Europe/Berlin", "1970-01-01T00:00:00Z");
        assertThat(month.at(at("2026-12-31T23:30:00Z"))).isEqualTo(new BudgetPeriod.Window(
                at("2026-12-31T23:00:00Z"), at("2027-01-31T23:00:00Z")));   // already January in Berlin
        BudgetPeriod week = BudgetPeriod.parse("week", "UTC", "1970-01-01T00:00:00Z");
        assertThat(week.at(at("2026-12-03T12:00:00Z"))).isEqualTo(new BudgetPeriod.Window(
                at("2026-11-30T00:00:00Z"), at("2026-12-07T00:00:00Z")));
        BudgetPeriod day = BudgetPeriod.parse("day", "UTC", "1970-01-01T00:00:00Z");
        assertThat(day.at(at("2026-12-03T12:00:00Z")).secondsLeft(at("2026-12-03T12:00:00Z"))).isEqualTo(43_200);
        BudgetPeriod fiveSeconds = BudgetPeriod.parse("PT5S", "UTC", "2026-01-01T00:00:00Z");
        assertThat(fiveSeconds.at(at("2026-01-01T00:00:07Z"))).isEqualTo(new BudgetPeriod.Window(
                at("2026-01-01T00:00:05Z"), at("2026-01-01T00:00:10Z")));
        BudgetPeriod thirtyDays = BudgetPeriod.parse("30d", "UTC", "2026-01-01T00:00:00Z");
        assertThat(thirtyDays.at(at("2026-02-01T00:00:00Z")).startMillis()).isEqualTo(at("2026-01-31T00:00:00Z"));
    }

    @Test
    void invalidBudgetSettingsFailNamingTheProperty() {
        assertThatThrownBy(() -> policy("teams.t.budget=-5"))
                .isInstanceOf(PolicyException.class)
                .hasMessage("Invalid configuration llm.ratelimit.teams.t.budget=-5: must not be negative");
        assertThatThrownBy(() -> policy("budget.period=fortnight"))
                .hasMessageStartingWith("Invalid configuration llm.ratelimit.budget.period=fortnight:");
        assertThatThrownBy(() -> policy("budget.zone=Mars/Olympus"))
                .hasMessageStartingWith("Invalid configuration llm.ratelimit.budget.zone=Mars/Olympus:");
        assertThatThrownBy(() -> policy("budget.admission=later"))
                .hasMessage("Invalid configuration llm.ratelimit.budget.admission=later: expected reserve or recorded");
        assertThatThrownBy(() -> policy("budget.period=500ms"))
                .hasMessage("Invalid configuration llm.ratelimit.budget.period=500ms: a budget period lasts at least 1s");
    }

    @Test
    void messagesShowAKeyOnlyAsItsHashPrefix() {
        BudgetLine key = new BudgetLine(BudgetScope.KEY, "sk-secret", "", 0, at("2027-01-01T00:00:00Z"), 1, -1);
        assertThat(key.label()).matches("key sha256:[0-9a-f]{12}").doesNotContain("secret");
        assertThat(new BudgetLine(BudgetScope.TEAM, "team-a", "gpt-4o", 0, 0, 1, -1).label()).isEqualTo("team team-a on model gpt-4o");
        assertThat(key.periodEndText()).isEqualTo("2027-01-01T00:00:00Z");
    }
}
