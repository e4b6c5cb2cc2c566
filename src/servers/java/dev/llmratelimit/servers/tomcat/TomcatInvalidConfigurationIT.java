package dev.llmratelimit.servers.tomcat;

import dev.llmratelimit.servers.DropInApplication;
import dev.llmratelimit.servers.SampleApplication;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Invalid configuration fails the deployment in a plain Tomcat (no CDI): the web-fragment's start-up
 * listener builds the runtime when the application starts, and Tomcat refuses to start it.
 */
@ExtendWith(ArquillianExtension.class)
class TomcatInvalidConfigurationIT {

    private static final String INVALID = "llm.ratelimit.reservation.dev=-0.1";

    @ArquillianResource
    Deployer deployer;

    @Deployment(name = "invalid", managed = false, testable = false)
    static WebArchive invalid() {
        return DropInApplication.libraryOnly("invalid-configuration", SampleApplication.smallRyeConfig(), INVALID);
    }

    @Test
    void invalidConfigurationFailsTheDeployment() throws IOException {
        assertThatThrownBy(() -> deployer.deploy("invalid")).hasStackTraceContaining("context failed to start");

        assertThat(tomcatLogs()).contains("Invalid configuration " + INVALID + ": a reservation must be a finite number >= 0");
    }

    private static String tomcatLogs() throws IOException {
        StringBuilder logs = new StringBuilder();
        try (Stream<Path> files = Files.list(Path.of(System.getProperty("tomcat.home"), "logs"))) {
            for (Path file : files.toList()) {
                logs.append(Files.readString(file, StandardCharsets.UTF_8));
            }
        }
        return logs.toString();
    }
}
