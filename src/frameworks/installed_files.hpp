#pragma once
// Reading a framework's own declaration files through the System, for the framework plug-ins.
#include <optional>
#include <string>
#include <string_view>

#include "facts/facts.hpp"
#include "python/framework_files.hpp"
#include "system/system.hpp"

namespace gpuvet::frameworks {

using Parser = std::optional<python::BuildDeclaration> (*)(std::string_view);

// The declaration a file makes, when the file is there and parses.
std::optional<python::BuildDeclaration> read_declaration(const sys::System& system,
                                                         const std::string& file, Parser parse);

// Puts what a declaration says into the fact; `file` becomes declared_by.
void apply(const std::optional<python::BuildDeclaration>& d, FrameworkFact& f,
           std::string_view file);

// The NVIDIA wheel of a component (cudnn, cudart ...) in the environment, if any.
const NvidiaWheelFact* wheel(const PythonEnvFact& env, std::string_view component);

}  // namespace gpuvet::frameworks
