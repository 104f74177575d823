package dev.graphrag.procedures;

import dev.graphrag.agrag.AgragWarmer;
import dev.graphrag.core.GraphRagRuntime;
import dev.graphrag.core.LayerWarmer;
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

import java.util.List;


/**
 * After a database becomes available, runs every method's {@link LayerWarmer} (AGRAG's today) for each corpus it
 * names, in Java on a background thread: GDS projections live in memory and a restart loses them, and the first
 * query would otherwise pay for loading the corpus snapshot. Each method's own setting turns its warming off
 * ({@code graphrag.agrag.warmOnStart=false}).
 */
public final class WarmupExtension extends ExtensionFactory<WarmupExtension.Dependencies> {
    /** The plugin's warmers: the procedures module is where the methods are assembled, so it lists them. */
    static final List<LayerWarmer> WARMERS = List.of(new AgragWarmer());

    public interface Dependencies {
        GraphDatabaseAPI graphDatabaseAPI();

        AvailabilityGuard availabilityGuard();

        Config config();

        LogService logService();
    }

    public WarmupExtension() {
        super(ExtensionType.DATABASE, "graphrag-warmup");
    }

    @Override
    public Lifecycle newInstance(ExtensionContext context, Dependencies deps) {
        GraphDatabaseAPI db = deps.graphDatabaseAPI();
        InternalLog log = deps.logService().getUserLog(WarmupExtension.class);
        return new LifecycleAdapter() {
            private volatile Thread worker;

            private final AvailabilityListener listener = new AvailabilityListener() {
                @Override
                public void available() {
                    GraphRagRuntime rt = GraphRagExtension.runtimeOf(deps.config());
                    if (rt == null) return; // misconfigured: the global extension logged why
                    Thread t = new Thread(() -> warm(db, rt, log), "graphrag-warmup-" + db.databaseName());
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

    static void warm(GraphDatabaseAPI db, GraphRagRuntime rt, InternalLog log) {
        for (LayerWarmer w : WARMERS) {
            if (!w.enabled(rt)) continue;
            try {
                for (String corpus : w.corpora(db)) {
                    if (Thread.currentThread().isInterrupted()) return;
                    long t0 = System.nanoTime();
                    String done = null;
                    // GDS may still be registering its procedures when the database turns available
                    for (int attempt = 1; done == null; attempt++) {
                        try {
                            done = w.warm(db, corpus, rt);
                        } catch (RuntimeException e) {
                            if (attempt >= 60 || e.getMessage() == null || !e.getMessage().contains("There is no procedure")) throw e;
                            Thread.sleep(1000);
                        }
                    }
                    log.info("graphrag: %s corpus '%s' of database '%s' warmed in %d ms (%s)", w.layer(), corpus, db.databaseName(),
                            (System.nanoTime() - t0) / 1_000_000, done);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                // a warm-up is an optimisation: the first query loads what is missing
                log.warn("graphrag: %s warm-up of database '%s' stopped: %s", w.layer(), db.databaseName(), e.getMessage());
            }
        }
    }
}
