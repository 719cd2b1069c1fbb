"""Where the toolkit's parts are on this machine: its folder, the engine's log4j config and Java sources,
Spark's Ivy cache, and what the toolkit builds or fetches for its JVM (beside the Python that runs it).

    from shoptoolkit.places import SHARE, TOOLKIT
"""
import importlib.util
import sys
from pathlib import Path

# The toolkit's folder (the scripts, pipelines/, the shoptoolkit package), found through the import
# system rather than a __file__: a script's text pasted into a notebook cell has no __file__ (or names
# the kernel's launcher), while the package is imported from the toolkit's folder wherever code runs.
TOOLKIT = Path(importlib.util.find_spec("shoptoolkit").submodule_search_locations[0]).resolve().parent
ENGINE_PARTS = TOOLKIT / "shoptoolkit" / "engine"  # the log4j config, the Java sources
LOG4J = ENGINE_PARTS / "log4j2.properties"
# Where Spark 4's --packages (spark.jars.packages) keeps the JARs it has downloaded.
IVY_JARS = Path.home() / ".ivy2.5.2" / "jars"
# What setup builds (the class archive, the log store's JAR) and a store's first start fetches (its connector).
SHARE = Path(sys.prefix) / "share" / "shop-toolkit"
