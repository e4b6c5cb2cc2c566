package dev.llmratelimit.demo;

import dev.llmratelimit.testsupport.Http;

import java.nio.file.Files;
import java.nio.file.Path;

/** Starts the README's demo on a free port, with extra properties over config/demo.properties. */
public final class DemoFixture implements AutoCloseable {

    private final DemoServer server;
    private final Http http;

    public DemoFixture(String... overrides) throws Exception {
        Path config = Files.createTempFile("demo", ".properties");
        Files.writeString(config, String.join("\n", overrides) + "\n");
        server = DemoServer.start(config, 0);
        http = new Http(server.port());
    }

    /** The demo over a configuration file: a LiteLLM config.yaml or a properties file. */
    public DemoFixture(Path config) throws Exception {
        server = DemoServer.start(config, 0);
        http = new Http(server.port());
    }

    public DemoServer server() {
        return server;
    }

    public Http http() {
        return http;
    }

    public int port() {
        return server.port();
    }

    @Override
    public void close() throws Exception {
        server.close();
    }
}
