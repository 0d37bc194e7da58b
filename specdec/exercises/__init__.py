"""Self-study exercises with automatic feedback: implement the rule yourself (the exercises notebook).

`check(name, function)` runs your function and specdec's on the same cases — the worked examples,
edge cases and seeded random ones — and compares the values, the types, the generator's state
afterwards and your inputs. On a failure it shows the first failing case and a hint for the mistake
your outputs match, found by running known wrong versions on the same cases (`checker` says how,
and what is simplified).

>>> def acceptance_rate(target, draft):
...     raise NotImplementedError
>>> check("acceptance_rate", acceptance_rate)
✗ acceptance_rate: not implemented yet
  to do  replace `raise NotImplementedError` in the cell above with your code, run that cell, then
         run this one again.
"""

from .checker import EXERCISE_NAMES, CheckResult, check

__all__ = ["EXERCISE_NAMES", "CheckResult", "check"]
