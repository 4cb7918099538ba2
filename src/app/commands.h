// Subcommands of the `radiant` executable. Each adds itself to the CLI11 app and returns the
// function main runs when that subcommand was chosen.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace radiant {

using CommandFn = std::function<int()>;

struct Command {
    CLI::App* subcommand;  // parsed() tells whether the user chose it
    CommandFn run;
};

Command add_demo_command(CLI::App& app);
Command add_train_command(CLI::App& app);
Command add_eval_command(CLI::App& app);
Command add_render_command(CLI::App& app);
Command add_fit_image_command(CLI::App& app);
Command add_prepare_command(CLI::App& app);
Command add_export_mesh_command(CLI::App& app);
Command add_export_points_command(CLI::App& app);
Command add_view_command(CLI::App& app);
Command add_plot_command(CLI::App& app);

}  // namespace radiant
