package dev.llmratelimit.config;

import dev.llmratelimit.testsupport.CapturedLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Properties;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;

/** Without a MicroProfile Config implementation the filter reads MicroProfile's default sources itself, in its order. */
class DefaultConfigSourcesTest {

    @TempDir
    Path classes;

    private ClassLoader classPath(String... lines) throws IOException {
        Path file = classes.resolve(DefaultConfigSources.RESOURCE);
        Files.createDirectories(file.getParent());
        Files.writeString(file, String.join("\n", lines) + "\n");
        return new URLClassLoader(new URL[]{classes.toUri().toURL()}, null);
    }

    private static Properties system(String... pairs) {
        Properties properties = new Properties();
        for (int i = 0; i < pairs.length; i += 2) {
            properties.setProperty(pairs[i], pairs[i + 1]);
        }
        return properties;
    }

    @Test
    void systemPropertiesWinOverEnvironmentVariablesWhichWinOverTheClassPathFile() throws IOException {
        ClassLoader loader = classPath("llm.ratelimit.models.gpt-4o.rpm=3", "llm.ratelimit.models.gpt-4o.tpm=1000",
                "llm.ratelimit.window=1h", "other.property=x");

        ConfigurationLoader.Source read = DefaultConfigSources.read(loader,
                system("llm.ratelimit.models.gpt-4o.rpm", "5", "llm.ratelimit.reservation.prod", "0.5"),
                Map.of("LLM_RATELIMIT_MODELS_GPT_4O_RPM", "9", "LLM_RATELIMIT_MODELS_GPT_4O_TPM", "2000",
                        "LLM_RATELIMIT_NEW_MODEL_RPM", "7"));

        assertThat(read.properties()).containsExactlyInAnyOrderEntriesOf(Map.of(
                "llm.ratelimit.models.gpt-4o.rpm", "5",
                "llm.ratelimit.models.gpt-4o.tpm", "2000",
                "llm.ratelimit.window", "1h",
                "llm.ratelimit.reservation.prod", "0.5"));
        assertThat(read.origin()).startsWith("system properties, environment variables and file:")
                .contains(DefaultConfigSources.RESOURCE).endsWith("(no MicroProfile Config implementation here)");
    }

    @Test
    void environmentNamesFollowMicroProfilesMappingInItsOrder() {
        assertThat(DefaultConfigSources.environmentValue(Map.of("llm.ratelimit.window", "exact", "llm_ratelimit_window", "a",
                "LLM_RATELIMIT_WINDOW", "b"), "llm.ratelimit.window")).isEqualTo("exact");
        assertThat(DefaultConfigSources.environmentValue(Map.of("llm_ratelimit_window", "a", "LLM_RATELIMIT_WINDOW", "b"),
                "llm.ratelimit.window")).isEqualTo("a");
        assertThat(DefaultConfigSources.environmentValue(Map.of("LLM_RATELIMIT_MODELS__GPT_4_1__TPM", "b"),
                "llm.ratelimit.models.\"gpt-4.1\".tpm")).isEqualTo("b");
    }

    @Test
    void aFileWithAHigherConfigOrdinalWinsOverSystemProperties() throws IOException {
        ClassLoader loader = classPath("config_ordinal=500", "llm.ratelimit.models.m.rpm=3");

        ConfigurationLoader.Source read = DefaultConfigSources.read(loader, system("llm.ratelimit.models.m.rpm", "5"), Map.of());

        assertThat(read.properties()).containsExactlyEntriesOf(Map.of("llm.ratelimit.models.m.rpm", "3"));
    }

    @Test
    void aRuntimeThatLimitsNothingSaysSoAtWarningWithWhereItLooked() throws IOException {
        ClassLoader loader = new URLClassLoader(new URL[0], null);
        try (CapturedLog log = CapturedLog.of(RateLimitRuntime.class);
             RateLimitRuntime runtime = RateLimitRuntime.create(ConfigurationLoader.reading(
                     () -> DefaultConfigSources.read(loader, system(), Map.of())), null, Clock.systemUTC())) {
            assertThat(runtime.limiter().policy().models()).isEmpty();
            assertThat(log.at(Level.WARNING)).containsExactly("llm-ratelimit-filter limits nothing: no model, caller or"
                    + " budget limit was found in system properties, environment variables and"
                    + " META-INF/microprofile-config.properties (none on the class path) (no MicroProfile Config"
                    + " implementation here) (and no llm.ratelimit.config-file names a file). Every request passes untouched.");
        }
    }

    @Test
    void aRuntimeWithALimitLogsNoWarning() throws IOException {
        ClassLoader loader = classPath("llm.ratelimit.models.m.rpm=3");
        try (CapturedLog log = CapturedLog.of(RateLimitRuntime.class);
             RateLimitRuntime runtime = RateLimitRuntime.create(ConfigurationLoader.reading(
                     () -> DefaultConfigSources.read(loader, system(), Map.of())), null, Clock.systemUTC())) {
            assertThat(runtime.limiter().policy().model("m").rpm()).isEqualTo(3);
            assertThat(log.at(Level.WARNING)).isEmpty();
        }
    }
}
