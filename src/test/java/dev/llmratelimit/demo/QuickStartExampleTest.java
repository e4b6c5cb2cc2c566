package dev.llmratelimit.demo;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/examples/QuickStart.java, run as a newcomer runs it ({@code java -cp ... QuickStart.java URL},
 * the JDK's source launcher) against the bundled demo: its exact output.
 */
class QuickStartExampleTest {

    @Test
    void theExamplePrintsTwoAnswersARefusalAndAStream() throws Exception {
        try (DemoFixture demo = new DemoFixture()) {
            Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), "docs/examples/QuickStart.java", demo.baseUrl())
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();   // libraries' warnings stay out of what the example prints
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();

            assertThat(process.exitValue()).as(output).isZero();
            List<String> lines = output.lines().toList();
            assertThat(lines).hasSize(4);
            assertThat(lines.get(0)).isEqualTo("call 1: Hello from the demo model. (30 tokens; x-ratelimit-remaining-tokens 60)");
            assertThat(lines.get(1)).isEqualTo("call 2: Hello from the demo model. (30 tokens; x-ratelimit-remaining-tokens 24)");
            assertThat(lines.get(2)).matches("call 3: 429 throttling_error, retry-after ([1-9]|[1-5][0-9]|60) s");
            assertThat(lines.get(3)).isEqualTo("stream: Hello from the demo model. (stop, 30 tokens)");
        }
    }
}
