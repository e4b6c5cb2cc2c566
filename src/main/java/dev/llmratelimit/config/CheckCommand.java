package dev.llmratelimit.config;

import dev.llmratelimit.config.ConfigurationLoader.LoadedConfiguration;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code java -jar llm-ratelimit-filter-<version>.jar check FILE...}: validates a configuration as
 * start-up would (without connecting to a store) and prints the resolved policy, per model and pool.
 * Several files make one configuration: LiteLLM YAML files beneath {@code .properties} files, a
 * later file of the same kind over an earlier one. Exit status 0 when valid, 1 with the start-up
 * error when not, or with every unknown property name and every YAML key that looks like a mistyped
 * known one (start-up only warns about those), 2 for a wrong command line.
 */
public final class CheckCommand {

    static final String USAGE = "usage: java -jar llm-ratelimit-filter-<version>-cli.jar check FILE... (.properties or LiteLLM .yaml)";
    /** Printed when the library jar alone meets a YAML file: the command jar carries the YAML reader. */
    static final String YAML_HINT = "The self-contained command reads YAML: java -jar llm-ratelimit-filter-<version>-cli.jar check FILE...";

    private CheckCommand() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length < 2 || !args[0].equals("check")) {
            err.println(USAGE);
            return 2;
        }
        List<Path> files = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            files.add(Path.of(args[i]));
        }
        try {
            List<String> notes = new ArrayList<>();
            List<String> unknown = new ArrayList<>();
            LoadedConfiguration loaded = loader(files, notes, unknown).load();
            notes.addAll(loaded.notes());
            unknown.addAll(loaded.warnings());
            RuntimeConfiguration configuration = RuntimeConfiguration.parse(loaded.properties(), null);
            if (!unknown.isEmpty()) {
                unknown.forEach(err::println);
                return 1;
            }
            out.println("Configuration: " + loaded.origin());
            out.print(PolicyTable.render(configuration));
            notes.forEach(note -> out.println("Note: " + note));
            return 0;
        } catch (RuntimeException e) {
            err.println(e.getMessage());
            if (String.valueOf(e.getMessage()).contains("jackson-dataformat-yaml")) {
                err.println(YAML_HINT);
            }
            return 1;
        }
    }

    /** The files as one configuration; a {@code config-file} they name is read beneath them, as at start-up. */
    private static ConfigurationLoader loader(List<Path> files, List<String> notes, List<String> unknown) {
        Map<String, String> yaml = new HashMap<>();
        Map<String, String> properties = new HashMap<>();
        for (Path file : files) {
            ConfigFile read = ConfigFiles.read(file);
            (ConfigFiles.isYaml(file) ? yaml : properties).putAll(read.properties());
            notes.addAll(read.notes());
            unknown.addAll(read.warnings());
        }
        Map<String, String> merged = new HashMap<>(yaml);
        merged.putAll(properties);
        return ConfigurationLoader.of(String.join(", ", files.stream().map(Path::toString).toList()), () -> merged);
    }
}
