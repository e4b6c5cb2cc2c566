package dev.llmratelimit.servers.tomcat;

import dev.llmratelimit.servers.SampleApplication;
import dev.llmratelimit.servers.SampleApplicationContract;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Tomcat sample in a managed Tomcat (unpacked from org.apache.tomcat:tomcat): BASIC
 * authentication against conf/tomcat-users.xml through Tomcat's UserDatabaseRealm. Plain Tomcat has
 * neither CDI nor MicroProfile Config: the filter runs without CDI and reads its configuration
 * through the SmallRye Config jars the sample carries in WEB-INF/lib.
 */
@ExtendWith(ArquillianExtension.class)
class TomcatIT extends SampleApplicationContract {

    @Deployment(testable = false)
    static WebArchive sample() {
        return SampleApplication.exported(SampleApplication.of("tomcat")
                .addAsLibraries(SampleApplication.smallRyeConfig()));
    }
}
