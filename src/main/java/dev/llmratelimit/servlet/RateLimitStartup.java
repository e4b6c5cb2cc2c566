package dev.llmratelimit.servlet;

import dev.llmratelimit.config.RateLimitContext;
import dev.llmratelimit.config.RateLimitProperties;
import dev.llmratelimit.config.RateLimitRuntime;
import jakarta.inject.Inject;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;

/**
 * Builds the runtime when the application starts, so invalid configuration fails the deployment
 * instead of every request (the web-fragment registers it with the filter). With CDI it starts the
 * shared {@link RateLimitContext}; without, it builds the runtime from MicroProfile Config and leaves
 * it in the {@link ServletContext} for the fragment's filter, and closes it when the application stops.
 */
public class RateLimitStartup implements ServletContextListener {

    /** Servlet context attribute holding the runtime this listener built where there is no CDI. */
    public static final String RUNTIME = RateLimitStartup.class.getName() + ".RUNTIME";

    @Inject
    RateLimitContext context;

    @Override
    public void contextInitialized(ServletContextEvent event) {
        if (context != null) {
            context.runtime();
        } else {
            event.getServletContext().setAttribute(RUNTIME,
                    RateLimitContext.startRuntime(RateLimitProperties.loader(), null));
        }
    }

    @Override
    public void contextDestroyed(ServletContextEvent event) {
        if (event.getServletContext().getAttribute(RUNTIME) instanceof RateLimitRuntime runtime) {
            event.getServletContext().removeAttribute(RUNTIME);
            runtime.close();
        }
    }
}
