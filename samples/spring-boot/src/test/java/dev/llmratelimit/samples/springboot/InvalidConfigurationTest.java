package dev.llmratelimit.samples.springboot;

import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Invalid limits fail the context: the application does not start, and the cause names the property. */
class InvalidConfigurationTest {

    @Test
    void aLimitThatIsNoNumberStopsTheApplication() {
        assertThatThrownBy(() -> new SpringApplicationBuilder(SampleApplication.class)
                .run("--server.port=0", "--llm.ratelimit.models.gpt-4o-mini.tpm=lots").close())
                .rootCause().hasMessageContaining("llm.ratelimit.models.gpt-4o-mini.tpm");
    }

    @Test
    void aStoreThatDoesNotExistStopsTheApplication() {
        assertThatThrownBy(() -> new SpringApplicationBuilder(SampleApplication.class)
                .run("--server.port=0", "--llm.ratelimit.store=nowhere").close())
                .rootCause().hasMessageContaining("llm.ratelimit.store");
    }
}
