// streamvision: the command-line program. `streamvision run` processes a dataset (see run.hpp);
// the command line is parsed with CLI11.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include <streamvision/streamvision.hpp>

#include "pipeline.hpp"
#include "run.hpp"

int main(int argc, char** argv) {
  CLI::App app{"streamvision: torchvision's image transforms in C++/CUDA on the caller's stream"};
  app.require_subcommand(0, 1);
  bool version = false;
  app.add_flag("--version", version, "print streamvision's version and exit");

  svtool::RunOptions o;
  CLI::App* run = app.add_subcommand(
      "run",
      "Decode images (JPEG, PNG), run a preprocessing pipeline on the CPU or the GPU and write the results.\n"
      "INPUT: files, folders (recursive) or ImageFolder trees (class sub-folders -> labels in manifest.jsonl).");
  run->add_option("--device", o.device, "auto (the GPU when there is one), cpu, cuda or cuda:N")->capture_default_str();
  run->add_option("--pipeline", o.pipeline, "the steps, see below")->capture_default_str();
  run->add_option("--batch", o.batch, "images per device batch (GPU decode batch, pipeline batch)")->capture_default_str();
  run->add_option("--workers", o.workers, "decoding threads (0: the core count, at most 8)")->capture_default_str();
  run->add_option("--seed", o.seed, "seed of the random steps' per-sample parameters")->capture_default_str();
  run->add_option("--format", o.format,
                  "outputs: auto (uint8 images -> png, others -> npy), npy, png or jpeg (.pt is not supported)")
      ->capture_default_str();
  run->add_option("--shard-size", o.shard_size,
                  "0: one .npy per image; N: results stacked into shard_NNNNN.npy files of N images (fixed-size pipelines)")
      ->capture_default_str();
  run->add_option("--contact-sheet", o.contact_sheet, "write a PNG grid of the first inputs beside their outputs");
  run->add_option("--contact-sheet-count", o.contact_sheet_count, "rows of the contact sheet")->capture_default_str();
  run->add_flag("--resume", o.resume, "skip inputs whose output exists");
  run->add_flag("--strict", o.strict, "exit with 1 when any input is skipped");
  // INPUT... OUTPUT_DIR as one list (the last is the output folder): CLI11 gives a list option
  // every positional. The name is a plain word (CLI11 2.4+ rejects names with spaces or dots, by
  // throwing from add_option); the help shows the usage words through type_name.
  std::vector<std::string> positionals;
  run->add_option("paths", positionals,
                  "image files or folders, then the folder for outputs, manifest.jsonl and classes.txt")
      ->type_name("INPUT... OUTPUT_DIR")
      ->required()
      ->expected(2, -1);
  run->footer(svtool::pipeline_help() +
              "Outputs are written atomically (temporary name, then rename); bad inputs are reported and skipped.\n"
              "Exit codes: 0 done, 1 every input failed (or any, with --strict), 2 bad arguments or output "
              "directory, 130 interrupted.\n"
              "Example: streamvision run --pipeline random_resized_crop=224,hflip=0.5,to_dtype=float32,"
              "normalize=imagenet --contact-sheet sheet.png assets/demo out");
  try {
    // INPUT... OUTPUT_DIR: CLI11 leaves the last positional to the required OUTPUT_DIR.
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (version) {
    std::printf("streamvision %s\n", streamvision::version());
    return 0;
  }
  if (run->parsed()) {
    o.output_dir = positionals.back();
    positionals.pop_back();
    o.inputs = positionals;
    return svtool::run(o);
  }
  std::fputs(app.help().c_str(), stdout);
  return 0;
}
