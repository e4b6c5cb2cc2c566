package dev.llmratelimit.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code java -jar llm-ratelimit-filter-<version>.jar check FILE...} on the built jars (failsafe,
 * after {@code package}): the library jar alone checks properties files and points a YAML at the
 * command jar; the command jar ({@code -cli}) alone checks a LiteLLM YAML and prints the docs' table.
 */
class CheckJarIT {

    private static final Path LIBRARY_JAR = Path.of(System.getProperty("library.jar", "target/llm-ratelimit-filter.jar"));
    private static final Path DEMO_JAR = Path.of(System.getProperty("demo.jar", "target/llm-ratelimit-demo.jar"));
    private static final Path CLI_JAR = Path.of(System.getProperty("cli.jar", "target/llm-ratelimit-filter-cli.jar"));

    private record Result(int status, String out, String err) {
    }

    private static Result java(Path dir, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(List.of(args));
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("java " + String.join(" ", args) + " did not finish");
        }
        return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void theLibraryJarChecksAPropertiesFileOnItsOwn(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("app.properties"), """
                llm.ratelimit.models.gpt-4o.rpm=10
                llm.ratelimit.reservation.prod=0.9
                llm.ratelimit.reservation.dev=rpm:1
                llm.ratelimit.default-priority=0
                """);

        Result result = java(dir, "-jar", LIBRARY_JAR.toString(), "check", file.toString());

        assertThat(result.status()).isZero();
        assertThat(result.out()).isEqualTo("Configuration: " + file + System.lineSeparator() + """
                store memory, window 60s fixed, rate-limit-type total, token-admission recorded, mode enforce, unknown models pass

                model   rpm  tpm  threshold  window  pool     share  pool rpm  pool tpm
                gpt-4o   10    -      50.0%     60s  default   0.0%         0         -
                                                     dev      10.0%         1         -
                                                     prod     90.0%         9         -
                """);
        assertThat(result.err()).isEmpty();
    }

    @Test
    void anInvalidFileExitsWithOneAndTheStartUpError(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("app.properties"), "llm.ratelimit.models.gpt-4o.rpm=10\n"
                + "llm.ratelimit.saturation-threshold=1.5\n");

        Result result = java(dir, "-jar", LIBRARY_JAR.toString(), "check", file.toString());

        assertThat(result.status()).isEqualTo(1);
        assertThat(result.err()).isEqualTo("Invalid configuration llm.ratelimit.saturation-threshold=1.5:"
                + " must lie between 0 and 1" + System.lineSeparator());
        assertThat(result.out()).isEmpty();
    }

    @Test
    void aYamlNeedsTheYamlModuleBesideTheLibraryJar(@TempDir Path dir) throws Exception {
        Path yaml = Path.of("config", "litellm-priorities.yaml").toAbsolutePath();

        Result alone = java(dir, "-jar", LIBRARY_JAR.toString(), "check", yaml.toString());
        Result withModule = java(dir, "-cp", DEMO_JAR.toString(), CheckCommand.class.getName(), "check", yaml.toString());

        assertThat(alone.status()).isEqualTo(1);
        assertThat(alone.err()).isEqualTo("Invalid configuration llm.ratelimit.config-file=" + yaml + ": reading YAML needs"
                + " com.fasterxml.jackson.dataformat:jackson-dataformat-yaml on the class path" + System.lineSeparator()
                + CheckCommand.YAML_HINT + System.lineSeparator());
        assertThat(withModule.status()).isZero();
        assertThat(withModule.out()).contains("""
                gpt-4o   10    -      50.0%     60s  default   0.0%         0         -
                                                     dev      10.0%         1         -
                                                     prod     90.0%         9         -
                """);
    }

    /** The documented command on the migration case: the command jar alone, a LiteLLM config.yaml. */
    @Test
    void theCommandJarAloneChecksALiteLlmYaml(@TempDir Path dir) throws Exception {
        Path yaml = Path.of("config", "litellm-priorities.yaml").toAbsolutePath();

        Result result = java(dir, "-jar", CLI_JAR.toString(), "check", yaml.toString());

        assertThat(result.status()).isZero();
        assertThat(result.out()).isEqualTo("Configuration: " + yaml + System.lineSeparator() + """
                store memory, window 60s fixed, rate-limit-type total, token-admission recorded, mode enforce, unknown models pass

                model   rpm  tpm  threshold  window  pool     share  pool rpm  pool tpm
                gpt-4o   10    -      50.0%     60s  default   0.0%         0         -
                                                     dev      10.0%         1         -
                                                     prod     90.0%         9         -
                Note: litellm_settings.priority_reservation_settings.saturation_check_cache_ttl is ignored: saturation is read in the same atomic step as every decision, never from a cache
                Note: Ignored (no rate-limit meaning here): litellm_settings.callbacks, model_list[].litellm_params.api_key, model_list[].litellm_params.model
                """);
        assertThat(result.err()).isEmpty();
    }
}
