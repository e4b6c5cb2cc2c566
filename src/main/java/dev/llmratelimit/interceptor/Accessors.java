package dev.llmratelimit.interceptor;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Optional;

/**
 * Reads a property of an application object through its public no-argument accessor, record style
 * ({@code model()}) or bean style ({@code getModel()}); the lookup is cached per class.
 */
final class Accessors {

    private final String recordName;
    private final String beanName;
    private final ClassValue<Optional<Method>> methods = new ClassValue<>() {
        @Override
        protected Optional<Method> computeValue(Class<?> type) {
            return find(type);
        }
    };

    Accessors(String recordName, String beanName) {
        this.recordName = recordName;
        this.beanName = beanName;
    }

    /** The property's value, an {@link Optional} unwrapped; {@code null} when absent or without accessor. */
    Object read(Object target) {
        Optional<Method> method = methods.get(target.getClass());
        if (method.isEmpty()) {
            return null;
        }
        try {
            Object value = method.get().invoke(target);
            return value instanceof Optional<?> optional ? optional.orElse(null) : value;
        } catch (IllegalAccessException | InvocationTargetException | RuntimeException e) {
            return null;
        }
    }

    private Optional<Method> find(Class<?> type) {
        for (String name : new String[] {recordName, beanName}) {
            try {
                Method method = type.getMethod(name);
                if (method.getReturnType() != void.class && !Modifier.isStatic(method.getModifiers())) {
                    // a public method of a class the application did not make public (e.g. a nested record)
                    method.trySetAccessible();
                    return Optional.of(method);
                }
            } catch (NoSuchMethodException e) {
                // try the next name
            }
        }
        return Optional.empty();
    }
}
