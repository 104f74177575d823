// MCMI on a hand-made graph (the hand-worked case T6 of docs/agrag.md), no data touched: how the expansion rules differ.
// scores: each node's influence; edges: {u, v, cost}; terminals: where the Steiner tree must reach.

// mean rule (default): the tree A-B-C grows by D only; ratio 0.193
CALL agrag.util.mcmi(
  {A: 0.30, B: 0.10, C: 0.30, D: 0.20, E: 0.01, F: 0.04, G: 0.25},
  [{u: 'A', v: 'B', cost: 0.10}, {u: 'B', v: 'C', cost: 0.10}, {u: 'A', v: 'C', cost: 0.45}, {u: 'B', v: 'D', cost: 0.30},
   {u: 'C', v: 'D', cost: 0.04}, {u: 'A', v: 'F', cost: 0.20}, {u: 'C', v: 'E', cost: 0.10}, {u: 'A', v: 'G', cost: 0.10}],
  ['A', 'C'])
YIELD mcstNodes, nodes, edges, ratio, expansions
RETURN mcstNodes, nodes, size(edges) AS edgeCount, ratio, expansions;

// the reference code's fixed threshold keeps adding: D, G, F, E
CALL agrag.util.mcmi(
  {A: 0.30, B: 0.10, C: 0.30, D: 0.20, E: 0.01, F: 0.04, G: 0.25},
  [{u: 'A', v: 'B', cost: 0.10}, {u: 'B', v: 'C', cost: 0.10}, {u: 'A', v: 'C', cost: 0.45}, {u: 'B', v: 'D', cost: 0.30},
   {u: 'C', v: 'D', cost: 0.04}, {u: 'A', v: 'F', cost: 0.20}, {u: 'C', v: 'E', cost: 0.10}, {u: 'A', v: 'G', cost: 0.10}],
  ['A', 'C'], {expansionRule: 'reference', outputEdges: 'selected'})
YIELD nodes, selectedEdges, expansions
RETURN nodes, selectedEdges, expansions;
