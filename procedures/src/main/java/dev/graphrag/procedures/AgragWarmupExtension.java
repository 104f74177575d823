package dev.graphrag.procedures;

import dev.graphrag.core.RagException;
import dev.graphrag.core.config.PluginSettings;
import org.neo4j.configuration.Config;
import org.neo4j.kernel.availability.AvailabilityGuard;
import org.neo4j.kernel.availability.AvailabilityListener;
import org.neo4j.kernel.extension.ExtensionFactory;
import org.neo4j.kernel.extension.ExtensionType;
import org.neo4j.kernel.extension.context.ExtensionContext;
import org.neo4j.kernel.internal.GraphDatabaseAPI;
import org.neo4j.kernel.lifecycle.Lifecycle;
import org.neo4j.kernel.lifecycle.LifecycleAdapter;
import org.neo4j.logging.InternalLog;
import org.neo4j.logging.internal.LogService;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * After a database becomes available, runs {@code agrag.project} for each of its AGRAG corpora on a background
 * thread: GDS projections live in memory and a restart loses them, and the first query would otherwise pay
 * for loading the corpus snapshot. Off with {@code graphrag.agrag.warmOnStart=false}.
 */
public final class AgragWarmupExtension extends ExtensionFactory<AgragWarmupExtension.Dependencies> {
    public interface Dependencies {
        GraphDatabaseAPI graphDatabaseAPI();

        AvailabilityGuard availabilityGuard();

        Config config();

        LogService logService();
    }

    public AgragWarmupExtension() {
        super(ExtensionType.DATABASE, "graphrag-agrag-warmup");
    }

    @Override
    public Lifecycle newInstance(ExtensionContext context, Dependencies deps) {
        GraphDatabaseAPI db = deps.graphDatabaseAPI();
        InternalLog log = deps.logService().getUserLog(AgragWarmupExtension.class);
        return new LifecycleAdapter() {
            private volatile Thread worker;

            private final AvailabilityListener listener = new AvailabilityListener() {
                @Override
                public void available() {
                    if (!enabled(deps.config())) return;
                    Thread t = new Thread(() -> warm(db, log), "graphrag-agrag-warmup-" + db.databaseName());
                    t.setDaemon(true);
                    worker = t;
                    t.start();
                }

                @Override
                public void unavailable() {}
            };

            @Override
            public void start() {
                if (!db.databaseName().equals("system")) deps.availabilityGuard().addListener(listener);
            }

            @Override
            public void stop() {
                deps.availabilityGuard().removeListener(listener);
                Thread t = worker;
                if (t != null) t.interrupt();
            }
        };
    }

    static boolean enabled(Config config) {
        try {
            return PluginSettings.load(GraphRagExtension.confDirectory(config), System.getenv()).bool("graphrag.agrag.warmOnStart");
        } catch (RagException e) {
            return false; // the global extension already logged the configuration error
        }
    }

    static void warm(GraphDatabaseAPI db, InternalLog log) {
        try {
            List<String> corpora = db.executeTransactionally("MATCH (m:AgMeta) RETURN m.corpus AS corpus ORDER BY corpus", Map.of(), r -> {
                List<String> out = new ArrayList<>();
                while (r.hasNext()) out.add((String) r.next().get("corpus"));
                return out;
            });
            for (String corpus : corpora) {
                long t0 = System.nanoTime();
                Map<String, Object> row = null;
                // plugins may still be registering their procedures (GDS's among them) when the database turns available
                for (int attempt = 1; row == null; attempt++) {
                    try {
                        row = db.executeTransactionally("CALL agrag.project({corpus: $corpus})", Map.of("corpus", corpus), r -> r.next());
                    } catch (RuntimeException e) {
                        if (attempt >= 60 || e.getMessage() == null || !e.getMessage().contains("There is no procedure")) throw e;
                        Thread.sleep(1000);
                    }
                }
                log.info("graphrag: agrag corpus '%s' of database '%s' warmed in %d ms (projected: %s)", corpus, db.databaseName(),
                        (System.nanoTime() - t0) / 1_000_000, row.get("projected"));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            // a warm-up is an optimisation: the first query loads what is missing
            log.warn("graphrag: agrag warm-up of database '%s' stopped: %s", db.databaseName(), e.getMessage());
        }
    }
}
