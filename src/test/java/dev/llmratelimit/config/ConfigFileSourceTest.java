package dev.llmratelimit.config;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The configuration file as a MicroProfile ConfigSource, found through the ServiceLoader. */
class ConfigFileSourceTest {

    private static final String TPM = "llm.ratelimit.models.gpt-4o-mini.tpm";
    private static final String RPM = "llm.ratelimit.models.gpt-4o-mini.rpm";

    @AfterEach
    void clearPointer() {
        System.clearProperty(ConfigFiles.PROPERTY);
    }

    private static String yaml(int rpm, int tpm) {
        return "model_list:\n  - model_name: gpt-4o-mini\n    litellm_params: {model: openai/gpt-4o-mini, rpm: " + rpm
                + ", tpm: " + tpm + "}\n";
    }

    /** A system property points at the YAML; microprofile-config.properties (ordinal 100) still wins over it. */
    @Test
    void theServiceLoaderAddsTheFileBeneathTheApplicationsOwnProperties(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("config.yaml"), yaml(10, 60));
        System.setProperty(ConfigFiles.PROPERTY, file.toString());
        SmallRyeConfig config = new SmallRyeConfigBuilder().addDefaultSources().addDiscoveredSources()
                .withSources(new PropertiesConfigSource(Map.of(RPM, "3"), "microprofile-config.properties", 100))
                .build();

        assertThat(config.getValue(TPM, String.class)).isEqualTo("60");
        assertThat(config.getValue(RPM, String.class)).isEqualTo("3");
        assertThat(config.getConfigValue(TPM).getSourceName()).isEqualTo("llm-ratelimit config file " + file);
        assertThat(config.getConfigValue(TPM).getSourceOrdinal()).isEqualTo(ConfigFileSource.ORDINAL);

        try (RateLimitRuntime runtime = RateLimitRuntime.create(
                ConfigurationLoader.of("MicroProfile Config", () -> MicroProfileProperties.read(config)), null, Clock.systemUTC())) {
            assertThat(runtime.limiter().policy().model("gpt-4o-mini").rpm()).isEqualTo(3);
            assertThat(runtime.limiter().policy().model("gpt-4o-mini").tpm()).isEqualTo(60);
            assertThat(runtime.configurationStatus().origin()).isEqualTo("MicroProfile Config over " + file);

            Files.writeString(file, yaml(10, 90));
            assertThat(runtime.reload()).isTrue();

            // the runtime read the file itself; MicroProfile Config keeps showing what it read at start-up
            assertThat(runtime.limiter().policy().model("gpt-4o-mini").tpm()).isEqualTo(90);
            assertThat(runtime.limiter().policy().model("gpt-4o-mini").rpm()).isEqualTo(3);
            assertThat(config.getValue(TPM, String.class)).isEqualTo("60");
        }
        assertThat(MicroProfileProperties.read(config)).containsOnly(
                Map.entry(RPM, "3"), Map.entry(ConfigFiles.PROPERTY, file.toString()));
    }

    /** A broken file must not break the application's other configuration; the filter refuses to start. */
    @Test
    void anInvalidFileLeavesTheSourceEmptyAndTheFilterRefusesToStart(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("config.yaml"), "model_list:\n  - model_name: m\n    litellm_params: {rpm: -1}\n");
        ConfigFileSource source = new ConfigFileSource(file);

        assertThat(source.getPropertyNames()).isEmpty();
        assertThat(source.getValue("llm.ratelimit.models.m.rpm")).isNull();
        assertThatThrownBy(() -> RateLimitRuntime.create(Map.of(ConfigFiles.PROPERTY, file.toString()), null))
                .hasMessage("Invalid configuration model_list[0].litellm_params.rpm: must be at least 1 (leave it out for no limit)");
    }

    @Test
    void aPropertiesFileIsServedAsItIs(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("limits.properties"), RPM + "=7\n");
        ConfigFileSource source = new ConfigFileSource(file);

        assertThat(source.getProperties()).containsOnly(Map.entry(RPM, "7"));
        assertThat(source.getName()).isEqualTo("llm-ratelimit config file " + file);
    }

    @Test
    void withoutAPointerTheSourceIsEmpty() {
        assertThat(new ConfigFileSource().getProperties()).isEmpty();
        assertThat(new ConfigFileSource().getName()).isEqualTo("llm-ratelimit config file (none)");
    }
}
