package dev.llmratelimit.engine;

import dev.llmratelimit.engine.FairnessRun.Asker;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The guarantees of work-conserving fairness (docs/fairness.md) on the worked example: tpm 1000,
 * team_a 0.5, team_b 0.5, threshold 0.5, 10 tokens a request, on a clock the run moves.
 */
class WorkConservingFairnessTest {

    private static final List<String> EXAMPLE = List.of("models.m.tpm=1000", "reservation.team_a=0.5",
            "reservation.team_b=0.5", "saturation-threshold=0.5");
    private static final int WINDOWS = 5;
    /** team_b arrives half way through the second window, asking 500 a window (10 tokens every 2 ticks). */
    private static final int B_ARRIVES = 150;

    private static FairnessRun example(String fairness, String windowMode) {
        List<String> settings = new java.util.ArrayList<>(EXAMPLE);
        settings.add("fairness=" + fairness);
        settings.add("window-mode=" + windowMode);
        return new FairnessRun(settings, List.of(Asker.twiceCapacity("team_a", 0, 1000), new Asker("team_b", B_ARRIVES, 1, 2)),
                WINDOWS);
    }

    @Test
    void slidingWindowsGiveALonePriorityTheModelAndAnArrivingOneItsShareWithinItsFirstWindow() {
        FairnessRun run = example("work-conserving", "sliding");

        assertThat(run.servedIn("team_a", 0)).isGreaterThanOrEqualTo(950);
        assertThat(run.servedFrom("team_b", B_ARRIVES)).isGreaterThanOrEqualTo(450);
        for (int window = 2; window < WINDOWS; window++) {
            int from = B_ARRIVES + (window - 1) * FairnessRun.TICKS_PER_WINDOW;
            if (from + FairnessRun.TICKS_PER_WINDOW <= WINDOWS * FairnessRun.TICKS_PER_WINDOW) {
                assertThat(run.servedFrom("team_a", from)).as("team_a from tick %d", from).isGreaterThanOrEqualTo(475);
                assertThat(run.servedFrom("team_b", from)).as("team_b from tick %d", from).isGreaterThanOrEqualTo(475);
            }
        }
        for (int window = 0; window < WINDOWS; window++) {
            assertThat(run.servedIn(window)).as("window %d", window).isLessThanOrEqualTo(1000);
        }
    }

    @Test
    void fixedWindowsGiveTheArrivingPriorityItsShareFromTheNextWindow() {
        FairnessRun run = example("work-conserving", "fixed");

        assertThat(run.servedIn("team_a", 0)).isEqualTo(1000);
        for (int window = 2; window < WINDOWS; window++) {
            assertThat(run.servedIn("team_a", window)).as("window %d", window).isGreaterThanOrEqualTo(475);
            assertThat(run.servedIn("team_b", window)).as("window %d", window).isGreaterThanOrEqualTo(475);
        }
        for (int window = 0; window < WINDOWS; window++) {
            assertThat(run.servedIn(window)).as("window %d", window).isLessThanOrEqualTo(1000);
        }
    }

    @Test
    void saturationFairnessHoldsALonePriorityToHalfTheModel() {
        FairnessRun run = example("saturation", "sliding");

        assertThat(run.servedIn("team_a", 0)).isEqualTo(500);
    }

    @Test
    void threePrioritiesArrivingOneAfterAnotherEachGetTheirShare() {
        FairnessRun run = new FairnessRun(List.of("models.m.tpm=10000", "reservation.prod=0.6", "reservation.dev=0.3",
                "default-priority=0.1", "saturation-threshold=0.5", "window-mode=sliding", "fairness=work-conserving"),
                List.of(Asker.twiceCapacity("prod", 0, 10_000), Asker.twiceCapacity("dev", 100, 10_000),
                        Asker.twiceCapacity(null, 200, 10_000)), 6);

        assertThat(run.servedIn("prod", 0)).isGreaterThanOrEqualTo(9500);
        // each arriving priority's first window: its share among those active, at least 90 % of it
        assertThat(run.servedFrom("dev", 100)).isGreaterThanOrEqualTo(3000);         // a third of the model
        assertThat(run.servedFrom(null, 200)).isGreaterThanOrEqualTo(900);           // a tenth
        for (int window = 3; window < 6; window++) {
            assertThat(run.servedIn("prod", window)).as("window %d", window).isGreaterThanOrEqualTo(5700);
            assertThat(run.servedIn("dev", window)).as("window %d", window).isGreaterThanOrEqualTo(2850);
            assertThat(run.servedIn(null, window)).as("window %d", window).isGreaterThanOrEqualTo(950);
        }
        for (int window = 0; window < 6; window++) {
            assertThat(run.servedIn(window)).as("window %d", window).isLessThanOrEqualTo(10_000);
        }
    }

    /** The comparison table of docs/decisions.md is this run's, window by window. */
    @Test
    void theDocumentedComparisonIsMeasured() throws IOException {
        FairnessRun saturation = example("saturation", "sliding");
        FairnessRun workConserving = example("work-conserving", "sliding");
        StringBuilder table = new StringBuilder(
                "| window | saturation: team_a | saturation: team_b | work-conserving: team_a | work-conserving: team_b |\n"
                        + "|---|---|---|---|---|\n");
        for (int window = 0; window < WINDOWS; window++) {
            table.append("| ").append(window + 1)
                    .append(" | ").append(saturation.servedIn("team_a", window))
                    .append(" | ").append(saturation.servedIn("team_b", window))
                    .append(" | ").append(workConserving.servedIn("team_a", window))
                    .append(" | ").append(workConserving.servedIn("team_b", window)).append(" |\n");
        }
        table.append("| 60 s from team_b's first request | ").append(saturation.servedFrom("team_a", B_ARRIVES))
                .append(" | ").append(saturation.servedFrom("team_b", B_ARRIVES))
                .append(" | ").append(workConserving.servedFrom("team_a", B_ARRIVES))
                .append(" | ").append(workConserving.servedFrom("team_b", B_ARRIVES)).append(" |\n");
        String docs = Files.readString(Path.of("docs/decisions.md"));
        assertThat(docs).as("docs/decisions.md holds the measured table").contains(table);
    }
}
