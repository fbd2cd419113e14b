import mathy_envs  # registers typing.io: mathy_core imports on Python 3.13 too
from mathy_core import ExpressionParser

print(ExpressionParser().parse("4x + 2y + 2x"))
