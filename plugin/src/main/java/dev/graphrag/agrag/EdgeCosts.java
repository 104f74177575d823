package dev.graphrag.agrag;

/** Query-aware edge costs (paper Eq. 14): f(x) = (1 - x) / 2 (HALF, the paper) or 1 - x (REFERENCE, the code). */
public enum EdgeCosts {
    HALF, REFERENCE;

    public static final double PSEUDO_COST = 10;

    public double cost(double similarity) {
        return this == HALF ? (1 - similarity) / 2 : 1 - similarity;
    }

    /** Synonym edge: f of the better of the two entities' similarity to the query. */
    public double synonym(double simU, double simV) {
        return cost(Math.max(simU, simV));
    }

    /** Any edge without an embedding to compare. */
    public double unknown() {
        return cost(0.5);
    }
}
