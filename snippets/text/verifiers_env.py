"""The text episodes as a verifiers environment (`pip install "mathy_envs[verifiers]"`):
its taskset, and the first prompt a model gets."""

from mathy_envs.text.verifiers import load_environment

env = load_environment(env="poly", difficulty="easy", seed=0, size=10, mode="rewrite")
tasks = list(env.taskset)
print(f"{len(tasks)} tasks; the first: {tasks[0].data.problem}")
print(tasks[0].data.prompt)
# To play them against a model server (OpenAI-compatible):
#
#   import verifiers.v1 as vf
#   ctx = vf.ModelContext(model="...", client=vf.EvalClientConfig(
#       base_url="http://localhost:8000/v1", api_key_var="OPENAI_API_KEY"))
#   async with env.serving():
#       trace = (await env.run_episode(tasks[0], ctx)).traces[0]
#       trace.rewards["won"].score, trace.reward  # the win, the episode's return
