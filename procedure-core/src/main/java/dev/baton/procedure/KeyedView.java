package dev.baton.procedure;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * A read-only map view of a list, keyed by a function of each element, for one {@code putAll}: a
 * {@link java.util.concurrent.ConcurrentHashMap} sizes its table once from {@code size()} there,
 * instead of doubling it again and again while a recovery inserts a hundred thousand procedures.
 */
final class KeyedView {
  private KeyedView() {}

  static <K, V> Map<K, V> of(List<V> values, Function<V, K> key) {
    return new AbstractMap<>() {
      @Override
      public int size() {
        return values.size();
      }

      @Override
      public Set<Entry<K, V>> entrySet() {
        return new AbstractSet<>() {
          @Override
          public int size() {
            return values.size();
          }

          @Override
          public Iterator<Entry<K, V>> iterator() {
            Iterator<V> it = values.iterator();
            return new Iterator<>() {
              @Override
              public boolean hasNext() {
                return it.hasNext();
              }

              @Override
              public Entry<K, V> next() {
                V v = it.next();
                return new SimpleImmutableEntry<>(key.apply(v), v);
              }
            };
          }
        };
      }
    };
  }
}
