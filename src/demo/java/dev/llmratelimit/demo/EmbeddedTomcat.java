package dev.llmratelimit.demo;

import jakarta.servlet.Filter;
import jakarta.servlet.Servlet;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.Wrapper;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.servlets.DefaultServlet;
import org.apache.catalina.startup.Tomcat;
import org.apache.coyote.AbstractProtocol;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.management.ObjectName;

/** A Tomcat on 127.0.0.1 with one root context, for the demo and the in-container tests. */
public final class EmbeddedTomcat implements AutoCloseable {

    private final Tomcat tomcat = new Tomcat();
    private final Connector connector = new Connector();
    private final Context context;

    public EmbeddedTomcat(int port) throws IOException {
        Path baseDir = Files.createTempDirectory("llm-ratelimit-tomcat");
        tomcat.setBaseDir(baseDir.toString());
        connector.setPort(port);
        connector.setProperty("address", "127.0.0.1");
        tomcat.setConnector(connector);
        tomcat.getHost().setAutoDeploy(false);
        context = tomcat.addContext("", baseDir.toString());
        // As in every real server, a default servlet answers unmapped paths (404), so filters see them too.
        Tomcat.addServlet(context, "default", new DefaultServlet());
        context.addServletMappingDecoded("/", "default");
    }

    /** At most this many container threads serve requests (the default is 200). */
    public EmbeddedTomcat maxThreads(int threads) {
        connector.setProperty("maxThreads", Integer.toString(threads));
        return this;
    }

    public Context context() {
        return context;
    }

    /** Adds a filter instance for the given URL patterns, in the order filters are added. */
    public EmbeddedTomcat filter(String name, Filter filter, String... urlPatterns) {
        FilterDef definition = new FilterDef();
        definition.setFilterName(name);
        definition.setFilter(filter);
        return map(definition, urlPatterns);
    }

    /** Adds a filter by class name, so that the container (and CDI, where present) creates it. */
    public EmbeddedTomcat filter(String name, String filterClass, String... urlPatterns) {
        FilterDef definition = new FilterDef();
        definition.setFilterName(name);
        definition.setFilterClass(filterClass);
        return map(definition, urlPatterns);
    }

    private EmbeddedTomcat map(FilterDef definition, String... urlPatterns) {
        definition.setAsyncSupported("true");
        context.addFilterDef(definition);
        FilterMap mapping = new FilterMap();
        mapping.setFilterName(definition.getFilterName());
        mapping.setDispatcher("REQUEST");
        mapping.setDispatcher("ASYNC");
        for (String pattern : urlPatterns) {
            mapping.addURLPattern(pattern);
        }
        context.addFilterMap(mapping);
        return this;
    }

    public EmbeddedTomcat servlet(String name, Servlet servlet, String... paths) {
        Wrapper wrapper = Tomcat.addServlet(context, name, servlet);
        wrapper.setAsyncSupported(true);
        for (String path : paths) {
            context.addServletMappingDecoded(path, name);
        }
        return this;
    }

    /** Starts the server; returns the port it listens on. */
    public int start() throws LifecycleException {
        tomcat.start();
        return port();
    }

    public int port() {
        return connector.getLocalPort();
    }

    /**
     * What the names of this server's connector threads start with. Once started on port 0, the
     * connector's name ends with the port it got, which the names of its threads, made before, lack.
     */
    public String threadNamePrefix() {
        if (!(connector.getProtocolHandler() instanceof AbstractProtocol<?> protocol)) {
            return "";
        }
        String name = ObjectName.unquote(protocol.getName());
        String port = "-" + connector.getLocalPort();
        return (name.endsWith(port) && connector.getPort() == 0 ? name.substring(0, name.length() - port.length()) : name) + "-";
    }

    @Override
    public void close() throws LifecycleException {
        tomcat.stop();
        tomcat.destroy();
    }
}
