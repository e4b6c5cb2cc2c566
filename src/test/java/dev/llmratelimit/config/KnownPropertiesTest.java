package dev.llmratelimit.config;

import dev.llmratelimit.testsupport.CapturedLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.logging.Level;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Unknown {@code llm.ratelimit.*} names are called out with the closest known property. */
class KnownPropertiesTest {

    @Test
    void typosNameTheClosestKnownPropertyWithTheOperatorsOwnNamesKept() {
        assertThat(KnownProperties.unknown(Map.of(
                "llm.ratelimit.modles.gpt-4o.tpm", "1000",
                "llm.ratelimit.reservaton.prod", "0.9",
                "llm.ratelimit.models.gpt-4o.rpm", "10",
                "llm.ratelimit.reservation.dev", "0.1",
                "llm.ratelimit.satruation-threshold", "0.5",
                "llm.ratelimit.principals.bob.budgte", "5",
                "other.property", "x"))).containsExactly(
                "Unknown property llm.ratelimit.modles.gpt-4o.tpm: did you mean llm.ratelimit.models.gpt-4o.tpm?",
                "Unknown property llm.ratelimit.principals.bob.budgte: did you mean llm.ratelimit.principals.bob.budget?",
                "Unknown property llm.ratelimit.reservaton.prod: did you mean llm.ratelimit.reservation.prod?",
                "Unknown property llm.ratelimit.satruation-threshold: did you mean llm.ratelimit.saturation-threshold?");
    }

    @Test
    void quotedModelNamesAndEveryScopeAreKnown() {
        assertThat(KnownProperties.unknown(Map.of(
                "llm.ratelimit.models.\"gpt-4.1\".tpm", "1",
                "llm.ratelimit.models.gpt-4o.fallbacks.dev", "gpt-4o-mini",
                "llm.ratelimit.teams.research.budgets.gpt-4o", "3",
                "llm.ratelimit.defaults.key.rpm-limit", "3",
                "llm.ratelimit.outbound.upstream.models.gpt-4o.tpm", "3",
                "llm.ratelimit.budget.jdbc.url", "jdbc:postgresql://db/x"))).isEmpty();
    }

    /** Every name the docs and the shipped configuration files use is one the registry knows. */
    @Test
    void everyPropertyTheDocsAndShippedFilesNameIsKnown() throws IOException {
        Pattern name = Pattern.compile("llm\\.ratelimit\\.[^\\s=`|,()\\[\\]'<>*{}]+");
        Set<String> unknown = new TreeSet<>();
        try (Stream<Path> files = Stream.concat(Stream.concat(Files.list(Path.of("docs")), Files.list(Path.of("config"))),
                Stream.of(Path.of("README.md"), Path.of("WEB-INF-samples/common/microprofile-config.properties")))) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                Matcher matcher = name.matcher(Files.readString(file));
                while (matcher.find()) {
                    String found = matcher.group().replace("\\:", ":");
                    // a prefix in prose (llm.ratelimit.models.<model>.rpm) ends with a dot; an odd quote is prose too
                    if (!found.endsWith(".") && !found.endsWith(":") && found.chars().filter(c -> c == '"').count() % 2 == 0 && !KnownProperties.isKnown(found) && !DOCUMENTED_TYPOS.contains(found)) {
                        unknown.add(file + ": " + found);
                    }
                }
            }
        }
        assertThat(unknown).isEmpty();
    }

    /** The typos docs/configuration-sources.md shows as examples of what the check reports. */
    private static final Set<String> DOCUMENTED_TYPOS = Set.of("llm.ratelimit.modles.gpt-4o.tpm", "llm.ratelimit.reservaton.prod");

    @Test
    void startUpWarnsAboutEachUnknownNameAndStillStarts() {
        try (CapturedLog log = CapturedLog.of(RateLimitRuntime.class);
             RateLimitRuntime runtime = RateLimitRuntime.create(ConfigurationLoader.of("test properties", () -> Map.of(
                     "llm.ratelimit.models.gpt-4o.rpm", "10", "llm.ratelimit.reservaton.prod", "0.9")), null, Clock.systemUTC())) {
            assertThat(runtime.limiter().policy().model("gpt-4o").rpm()).isEqualTo(10);
            assertThat(log.at(Level.WARNING)).containsExactly(
                    "Unknown property llm.ratelimit.reservaton.prod: did you mean llm.ratelimit.reservation.prod?");
        }
    }

    @Test
    void yamlKeysNearAReadKeyAreWarningsTheOthersNotes(@TempDir Path dir) throws IOException {
        Path yaml = Files.writeString(dir.resolve("config.yaml"), """
                model_list:
                  - model_name: gpt-4o
                    litellm_params:
                      model: openai/gpt-4o
                      rpm: 10
                litellm_settings:
                  priority_reservations:
                    prod: 0.9
                  callbacks: ["prometheus"]
                router_settings:
                  routing_strategy: simple-shuffle
                """);

        ConfigFile read = ConfigFiles.read(yaml);

        assertThat(read.warnings()).containsExactly("Unknown key litellm_settings.priority_reservations is not read:"
                + " did you mean litellm_settings.priority_reservation?");
        assertThat(read.notes()).containsExactly("Ignored (no rate-limit meaning here): litellm_settings.callbacks,"
                + " model_list[].litellm_params.model, router_settings");
    }
}
