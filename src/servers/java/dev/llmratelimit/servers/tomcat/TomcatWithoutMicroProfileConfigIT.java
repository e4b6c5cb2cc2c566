package dev.llmratelimit.servers.tomcat;

import dev.llmratelimit.servers.SampleApplication;
import dev.llmratelimit.servers.SampleApplicationContract;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Tomcat sample with only the library and its own dependencies in WEB-INF/lib: no MicroProfile
 * Config implementation at all. The filter reads MicroProfile's default sources itself: the
 * sample's META-INF/microprofile-config.properties (whose gpt-4o-mini limit refuses bob's third
 * request) and Tomcat's system properties.
 */
@ExtendWith(ArquillianExtension.class)
class TomcatWithoutMicroProfileConfigIT extends SampleApplicationContract {

    @Deployment(testable = false)
    static WebArchive sample() {
        return SampleApplication.exported(SampleApplication.of("tomcat", "tomcat-without-microprofile-config.war"));
    }
}
