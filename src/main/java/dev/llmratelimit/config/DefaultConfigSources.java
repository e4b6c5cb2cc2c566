package dev.llmratelimit.config;

import dev.llmratelimit.policy.PolicyException;
import dev.llmratelimit.policy.PolicyParser;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * The sources MicroProfile Config reads by default, read by us where the container has no
 * MicroProfile Config implementation (plain Tomcat, Jetty): system properties (ordinal 400),
 * environment variables (300, found by MicroProfile's name mapping) and every
 * {@value #RESOURCE} on the application's class path (100, or its own {@code config_ordinal}).
 * A higher ordinal wins. An environment variable changes a property another source names; like
 * MicroProfile Config, it cannot introduce one.
 */
final class DefaultConfigSources {

    static final String RESOURCE = "META-INF/microprofile-config.properties";
    private static final String ORDINAL = "config_ordinal";

    private DefaultConfigSources() {
    }

    /** What the application's class loader sees now. */
    static ConfigurationLoader.Source read() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        return read(loader != null ? loader : DefaultConfigSources.class.getClassLoader(),
                System.getProperties(), System.getenv());
    }

    static ConfigurationLoader.Source read(ClassLoader loader, Properties systemProperties, Map<String, String> environment) {
        List<Source> sources = new ArrayList<>();
        Map<String, String> system = new HashMap<>();
        systemProperties.stringPropertyNames().forEach(name -> system.put(name, systemProperties.getProperty(name)));
        sources.add(new Source(400, system, false));
        sources.add(new Source(300, environment, true));
        List<URL> files = resources(loader);
        for (URL file : files) {
            Map<String, String> properties = load(file);
            sources.add(new Source(ordinal(properties, file), properties, false));
        }
        sources.sort(Comparator.comparingInt(Source::ordinal).reversed());

        Set<String> names = new TreeSet<>();
        sources.stream().filter(source -> !source.environment()).forEach(source -> source.properties().keySet().stream()
                .filter(name -> name.startsWith(PolicyParser.PREFIX)).forEach(names::add));
        Map<String, String> properties = new HashMap<>();
        for (String name : names) {
            for (Source source : sources) {
                String value = source.value(name);
                if (value != null && !value.isEmpty()) {
                    properties.put(name, value);
                    break;
                }
            }
        }
        return new ConfigurationLoader.Source(describe(files), properties);
    }

    private static String describe(List<URL> files) {
        return "system properties, environment variables and " + (files.isEmpty() ? RESOURCE + " (none on the class path)"
                : String.join(", ", files.stream().map(URL::toString).toList()))
                + " (no MicroProfile Config implementation here)";
    }

    /**
     * MicroProfile's mapping of a property name to an environment variable: the name as it is, then
     * with every character that is not a letter or digit replaced by {@code _}, then that in upper case.
     */
    static String environmentValue(Map<String, String> environment, String name) {
        String value = environment.get(name);
        if (value != null) {
            return value;
        }
        StringBuilder sanitized = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            sanitized.append((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c : '_');
        }
        value = environment.get(sanitized.toString());
        return value != null ? value : environment.get(sanitized.toString().toUpperCase(java.util.Locale.ROOT));
    }

    private static List<URL> resources(ClassLoader loader) {
        try {
            return Collections.list(loader.getResources(RESOURCE));
        } catch (IOException e) {
            throw new PolicyException(RESOURCE, "", "cannot be listed on the class path (" + e + ")");
        }
    }

    private static Map<String, String> load(URL file) {
        Properties loaded = new Properties();
        try (InputStream in = file.openStream()) {
            loaded.load(new InputStreamReader(in, StandardCharsets.UTF_8));
        } catch (IOException | IllegalArgumentException e) {
            throw new PolicyException(RESOURCE, file.toString(), "cannot be read (" + e + ")");
        }
        Map<String, String> properties = new HashMap<>();
        loaded.stringPropertyNames().forEach(name -> properties.put(name, loaded.getProperty(name)));
        return properties;
    }

    private static int ordinal(Map<String, String> properties, URL file) {
        String text = properties.get(ORDINAL);
        if (text == null) {
            return 100;
        }
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new PolicyException(ORDINAL, text, "expected a whole number in " + file);
        }
    }

    private record Source(int ordinal, Map<String, String> properties, boolean environment) {

        String value(String name) {
            return environment ? environmentValue(properties, name) : properties.get(name);
        }
    }
}
