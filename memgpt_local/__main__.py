from memgpt_local.cli.main import main

main()
