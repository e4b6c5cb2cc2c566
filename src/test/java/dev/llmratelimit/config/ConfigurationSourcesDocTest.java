package dev.llmratelimit.config;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/configuration-sources.md shows the tested files and the command's real output, never a copy that drifted. */
class ConfigurationSourcesDocTest {

    private static final Path DOC = Path.of("docs", "configuration-sources.md");

    @Test
    void theQuickStartYamlInTheDocsIsTheTestedFile() throws Exception {
        String yaml = Files.readString(Path.of("config", "litellm-quickstart.yaml"));

        assertThat(Files.readString(DOC)).contains("```yaml\n" + yaml + "```\n");
    }

    @Test
    void theCheckOutputInTheDocsIsWhatTheCommandPrints() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = CheckCommand.run(new String[] {"check", "config/litellm-priorities.yaml"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(new ByteArrayOutputStream()));

        assertThat(status).isZero();
        assertThat(Files.readString(DOC)).contains("```\n" + out.toString(StandardCharsets.UTF_8) + "```\n");
    }
}
