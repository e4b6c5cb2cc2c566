package dev.llmratelimit.testsupport;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

/** Class loaders over this test run's class path with some entries left out, as an application without those APIs. */
public final class ClassPaths {

    private ClassPaths() {
    }

    /** The class path without every entry whose path contains one of the names. */
    public static URLClassLoader without(String... excluded) throws MalformedURLException {
        List<URL> urls = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            boolean keep = true;
            for (String name : excluded) {
                keep &= !entry.contains(name);
            }
            if (keep) {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        return new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
    }
}
