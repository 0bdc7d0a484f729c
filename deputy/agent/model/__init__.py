"""The model as the agent sees it: the chat model and its async twin (`chat_model`, `async_model`),
requests through the gateway (`model_requests`, `model_outcomes`), tool calls written as text for small
local models (`text_tools`, `text_tools_model`, `tool_parsing`, `call_grammar`), and the scripted
model shipped for tests (`testing`, `testing_server`)."""
