"""What a Spark JVM started here needs, apart from the toolkit's logic: Java and Delta's JARs, the driver's
options (the JIT, the class archive), the log store for safe commits, and interpreted expressions for a
small day's queries. docs/session.md says why each is there."""
