package dev.graphrag.procedures;

import org.neo4j.configuration.Config;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.gds.OpenGdsLicenseState;
import org.neo4j.gds.applications.operations.FeatureTogglesRepository;
import org.neo4j.gds.concurrency.OpenGdsConcurrencyValidator;
import org.neo4j.gds.concurrency.OpenGdsPoolSizes;
import org.neo4j.gds.configuration.DefaultsConfiguration;
import org.neo4j.gds.configuration.LimitsConfiguration;
import org.neo4j.gds.core.OpenGdsIdMapBehavior;
import org.neo4j.gds.core.model.OpenModelCatalog;
import org.neo4j.gds.core.write.NativeExportBuildersProvider;
import org.neo4j.gds.metrics.Metrics;
import org.neo4j.gds.procedures.ExporterBuildersProviderService;
import org.neo4j.gds.procedures.integration.DefaultExportLocation;
import org.neo4j.gds.procedures.integration.LogAccessor;
import org.neo4j.gds.procedures.integration.OpenGraphDataScienceExtensionBuilder;
import org.neo4j.gds.projection.AlphaCypherAggregation;
import org.neo4j.gds.projection.CypherAggregation;
import org.neo4j.kernel.api.procedure.GlobalProcedures;
import org.neo4j.kernel.extension.ExtensionFactory;
import org.neo4j.kernel.extension.context.ExtensionContext;
import org.neo4j.kernel.lifecycle.Lifecycle;
import org.neo4j.logging.internal.LogService;

import java.util.Optional;

/**
 * Wires GDS's procedures into an embedded Neo4j of the calendar line (GDS 2.26), as the 5.26 line's twin does for
 * GDS 2.13: the open edition's choices (native writes only, no model storing, four-thread pools, no metrics). The
 * GDS server plugin ships this extension in a module that is not on Maven Central; a real server does not need it.
 */
public final class OpenGdsExtension extends ExtensionFactory<OpenGdsExtension.Dependencies> {
    public interface Dependencies {
        Config config();

        DatabaseManagementService databaseManagementService();

        GlobalProcedures globalProcedures();

        LogService logService();
    }

    public OpenGdsExtension() {
        super("gds.open.embedded");
    }

    @Override
    public Lifecycle newInstance(ExtensionContext context, Dependencies deps) {
        var log = new LogAccessor().getLog(deps.logService(), getClass());
        ExporterBuildersProviderService exporters = (db, cfg) -> new NativeExportBuildersProvider();
        var built = OpenGraphDataScienceExtensionBuilder.create(
                log, deps.databaseManagementService(), context.dependencySatisfier(), deps.globalProcedures(), deps.config(),
                new OpenGdsConcurrencyValidator(), DefaultsConfiguration.Instance, exporters, new DefaultExportLocation(log, deps.config()),
                new FeatureTogglesRepository(), new OpenGdsIdMapBehavior(), OpenGdsLicenseState.INSTANCE, LimitsConfiguration.Instance,
                Metrics.DISABLED, new OpenModelCatalog(),
                model -> { throw new UnsupportedOperationException("GDS model storing is not available in the embedded server"); },
                new OpenGdsPoolSizes(), new CypherAggregation(), new AlphaCypherAggregation(),
                Optional.empty(), Optional.empty(), Optional.empty());
        return built.getLeft().build();
    }
}
