"""The analysis layer, between the facts of a file and the rules.

- values: what a name or expression holds at a point of the code (the value model);
- paths: which values carry a gradient from a tape's sources to its target;
- gradcalls: every `tape.gradient(...)` call resolved to the tape object it asks;
- traced, python_state, guards: which bodies TensorFlow traces, where Python names live
  and which first-call guards make creation inside a trace safe;
- library (library.tsv): what library functions and methods return, one row per API;
- modules: the value models of the user's other modules, for names imported from them;
- reach: whether evaluating an expression may read a model or variable it does not name;
- remote: what a name imported from another module of the user's project is.
"""
