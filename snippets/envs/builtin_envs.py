"""Every built-in environment: its task name, class and namespace."""

from mathy_envs import envs

for task, env_class in envs.ENV_TASKS.items():
    env = env_class()
    print(f"{task:<25} {env_class.__name__:<22} {env.get_env_namespace()}")

assert list(envs.ENV_TASKS.values()) == envs.MATHY_BUILTIN_ENVS
