import builtins

builtins.CHAINED_SITECUSTOMIZE = True
