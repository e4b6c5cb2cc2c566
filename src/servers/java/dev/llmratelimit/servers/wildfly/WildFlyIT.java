package dev.llmratelimit.servers.wildfly;

import dev.llmratelimit.servers.SampleApplication;
import dev.llmratelimit.servers.SampleApplicationContract;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The WildFly sample in a managed WildFly (unpacked from wildfly-dist by the build): BASIC
 * authentication through the default {@code other} domain's ApplicationRealm, CDI by Weld, the
 * configuration through WildFly's SmallRye Config (the WAR carries no MicroProfile Config
 * implementation).
 */
@ExtendWith(ArquillianExtension.class)
class WildFlyIT extends SampleApplicationContract {

    @Deployment(testable = false)
    static WebArchive sample() {
        return SampleApplication.exported(SampleApplication.of("wildfly"));
    }
}
