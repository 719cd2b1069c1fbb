"""databricks.yml read as the Databricks CLI would, as far as it can be without a workspace.

The CLI cannot be installed here, so `databricks bundle validate` cannot run: each job is built with
databricks-bundles' own model (Job.from_dict), which refuses an unknown key and a value it cannot
convert (a word for a number, a name outside an enum). It converts other values without a word: a
list given for a string becomes the list's text, a mapping given for a list becomes its keys. So
the built job is read back and compared shape by shape with the YAML (shape_problems).
The bundle's root, targets and variables have no model in the package: their keys are checked
against the sets below, the settings this bundle may use (the bundle configuration reference).
"""
from pathlib import Path

import yaml

BUNDLE = Path(__file__).resolve().parents[2] / "databricks.yml"
ROOT_KEYS = {"bundle", "include", "variables", "resources", "targets", "workspace", "sync",
             "artifacts", "permissions", "run_as", "presets", "experimental", "scripts", "python"}
TARGET_KEYS = {"default", "mode", "workspace", "variables", "resources", "permissions", "run_as",
               "presets", "sync", "artifacts", "bundle", "git", "cluster_id", "compute_id"}
VARIABLE_KEYS = {"default", "description", "lookup", "type"}


def load(path=BUNDLE) -> dict:
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def build_job(name: str, settings: dict):
    """The job built with the bundle's model; ValueError (or TypeError) on anything it refuses."""
    from databricks.bundles.jobs import Job
    job = Job.from_dict(settings)
    problems = shape_problems(settings, job.as_dict(), f"jobs.{name}")
    if problems:
        raise ValueError("; ".join(problems))
    return job


def build_pipeline(name: str, settings: dict):
    """The pipeline built with the bundle's model, read back as build_job does."""
    from databricks.bundles.pipelines import Pipeline
    pipeline = Pipeline.from_dict(settings)
    problems = shape_problems(settings, pipeline.as_dict(), f"pipelines.{name}")
    if problems:
        raise ValueError("; ".join(problems))
    return pipeline


def shape_problems(given, built, where: str) -> list:
    """Where the model holds a value of another shape than the YAML gave (a mapping, a list, a scalar)."""
    if given in ({}, []):
        return []  # an empty mapping or list is left out of the read-back
    if isinstance(given, dict):
        if not isinstance(built, dict):
            return [f"{where}: a mapping given, the model made it {built!r}"]
        return [problem for key, value in given.items()
                for problem in shape_problems(value, built.get(key), f"{where}.{key}")]
    if isinstance(given, list):
        if not isinstance(built, list) or len(built) != len(given):
            return [f"{where}: a list given, the model made it {built!r}"]
        return [problem for number, (item, made) in enumerate(zip(given, built))
                for problem in shape_problems(item, made, f"{where}[{number}]")]
    if isinstance(built, (dict, list)):
        return [f"{where}: {given!r} given, the model made it {built!r}"]
    return []


def unknown_keys(bundle: dict) -> list:
    """The bundle's root, target and variable keys that the bundle settings do not have."""
    found = [f"{key} (bundle root)" for key in bundle if key not in ROOT_KEYS]
    for target, settings in bundle.get("targets", {}).items():
        found += [f"targets.{target}.{key}" for key in settings if key not in TARGET_KEYS]
    for name, settings in bundle.get("variables", {}).items():
        found += [f"variables.{name}.{key}" for key in settings if key not in VARIABLE_KEYS]
    return found


def task_argv(task: dict, run_date: str, variables: dict, **parameters) -> list:
    """The argv a shop_daily task's script gets for a run with this run_date (and these job parameters,
    the job's defaults for the others)."""
    return job_task_argv(task, job_parameters("shop_daily", variables, run_date=run_date, **parameters), variables)


def job_parameters(job: str, variables: dict, **given) -> dict:
    """A run's job parameters: those given, the job's defaults for the others, with the bundle's variables
    (${var.NAME}) filled in from variables, else from their defaults."""
    bundle = load()
    known = {name: spec.get("default") for name, spec in bundle["variables"].items()} | variables
    defaults = {}
    for parameter in bundle["resources"]["jobs"][job].get("parameters", []):
        value = parameter["default"]
        for name, filled in known.items():
            value = value.replace("${var.%s}" % name, str(filled))
        defaults[parameter["name"]] = value
    return {**defaults, **given}


def job_task_argv(task: dict, job_parameters: dict, variables: dict) -> list:
    """The argv a spark_python_task's script gets: its file, then its parameters with the run's job
    parameters ({{job.parameters.NAME}}) and the bundle's variables (${var.NAME}) filled in."""
    script = task["spark_python_task"]
    argv = [str(BUNDLE.parent / script["python_file"])]
    for parameter in script.get("parameters", []):
        for name, value in job_parameters.items():
            parameter = parameter.replace("{{job.parameters.%s}}" % name, str(value))
        for name, value in variables.items():
            parameter = parameter.replace("${var.%s}" % name, str(value))
        argv.append(parameter)
    return argv
