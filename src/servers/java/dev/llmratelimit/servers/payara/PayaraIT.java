package dev.llmratelimit.servers.payara;

import dev.llmratelimit.sample.payara.SampleIdentityStore;
import dev.llmratelimit.servers.SampleApplication;
import dev.llmratelimit.servers.SampleApplicationContract;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URI;

/**
 * The Payara sample in a managed Payara Micro (fish.payara.extras:payara-micro): BASIC
 * authentication by Jakarta Security ({@link SampleIdentityStore}), CDI by Payara's Weld, the
 * configuration through Payara's own MicroProfile Config (the WAR carries no implementation).
 * Payara drops a @WebFilter that carries a CDI scope without failing the deployment, so these
 * tests, like every server's, check the filter's headers and refusals.
 */
@ExtendWith(ArquillianExtension.class)
class PayaraIT extends SampleApplicationContract {

    @Deployment(testable = false)
    static WebArchive sample() {
        return SampleApplication.exported(SampleApplication.of("payara").addClass(SampleIdentityStore.class));
    }

    /** Payara Micro reports the machine's external address; the port is the one it bound. */
    @Override
    protected URI applicationRoot() throws Exception {
        URI reported = super.applicationRoot();
        return new URI("http", null, "127.0.0.1", reported.getPort(), reported.getPath(), null, null);
    }
}
