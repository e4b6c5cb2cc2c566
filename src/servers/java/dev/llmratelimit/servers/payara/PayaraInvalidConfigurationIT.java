package dev.llmratelimit.servers.payara;

import dev.llmratelimit.servers.DropInApplication;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Invalid configuration fails the deployment in Payara Micro: through the web-fragment's start-up
 * listener, and where the fragment is left out and only the interceptor is used, through the CDI
 * observer of the application's start. Payara Micro keeps running without the application (it logs
 * {@code Exception while loading the app} and lists no deployed application) and its managed adapter
 * reports no failure, so the test reads the log the adapter's {@code --logtofile} writes.
 */
@ExtendWith(ArquillianExtension.class)
class PayaraInvalidConfigurationIT {

    private static final String INVALID = "llm.ratelimit.reservation.dev=-0.1";
    private static final Path LOGS = Path.of("target");

    @ArquillianResource
    Deployer deployer;

    @Deployment(name = "invalid-fragment", managed = false, testable = false)
    static WebArchive invalidWithFragment() {
        return DropInApplication.libraryOnly("invalid-fragment", new File[0], INVALID);
    }

    @Deployment(name = "invalid-interceptor-only", managed = false, testable = false)
    static WebArchive invalidInterceptorOnly() {
        return DropInApplication.withLibrary("invalid-interceptor-only", INVALID)
                .setWebXML(new StringAsset(DropInApplication.ABSOLUTE_ORDERING));
    }

    @Test
    void invalidConfigurationFailsTheDeploymentWithTheFragment() throws IOException {
        assertFailsToDeploy("invalid-fragment");
    }

    @Test
    void invalidConfigurationFailsTheDeploymentOfAnInterceptorOnlyApplication() throws IOException {
        assertFailsToDeploy("invalid-interceptor-only");
    }

    private void assertFailsToDeploy(String deployment) throws IOException {
        Map<Path, Long> before = logSizes();
        deployer.deploy(deployment);
        String logged = logSince(before);
        deployer.undeploy(deployment);

        assertThat(logged).contains("llm-ratelimit-filter cannot start, so neither can the application: "
                        + "Invalid configuration " + INVALID + ": a reservation must be a finite number >= 0")
                .contains("Exception while loading the app");
    }

    private static Map<Path, Long> logSizes() throws IOException {
        Map<Path, Long> sizes = new HashMap<>();
        for (Path log : logFiles()) {
            sizes.put(log, Files.size(log));
        }
        return sizes;
    }

    /** What the logs gained since {@code before}: new files whole, grown files past their old size. */
    private static String logSince(Map<Path, Long> before) throws IOException {
        StringBuilder logged = new StringBuilder();
        for (Path log : logFiles()) {
            byte[] content = Files.readAllBytes(log);
            int from = (int) Math.min(content.length, before.getOrDefault(log, 0L));
            logged.append(new String(content, from, content.length - from, StandardCharsets.UTF_8));
        }
        return logged.toString();
    }

    private static java.util.List<Path> logFiles() throws IOException {
        try (Stream<Path> files = Files.list(LOGS)) {
            return files.filter(file -> file.getFileName().toString().startsWith("payara-micro.log"))
                    .filter(file -> !file.getFileName().toString().endsWith(".lck")).toList();
        }
    }
}
